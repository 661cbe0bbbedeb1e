/**
 * Which ensemble this is, as a random id the ensemble keeps itself: the znode
 * `/keeper/ensemble-id`, created by the first Keeper that asks. Durable state that belongs to an
 * ensemble (its upgrades, and any other view's) is kept under `<stateDir>/ensembles/<id>/`, never
 * under the name a config gives it: two Keepers started by one user may both call their sandbox
 * "default" and share a state directory, and one ensemble may have two names.
 *
 * Why a marker rather than the list of members: the members' addresses are how this Keeper
 * reaches them (names, addresses, proxies) and change with a reconfig or a config edit, while the
 * marker lives in the data tree with what it identifies. An ensemble wiped and rebuilt on the
 * same hosts is a new ensemble, and its old durable state must not be mistaken for its own. (A
 * chroot in the connection string moves the marker, as it moves everything Keeper writes.)
 * Callers still compare members where acting on the wrong hosts would hurt (recheck.ts).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import zookeeper from 'node-zookeeper-client';
import { backoffDelay } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import { toZkError } from '../zk/errors.js';
import type { ZkMutations } from '../zk/mutations.js';
import type { EnsembleIdentityReader } from '../config/ensembleState.js';

export const ENSEMBLE_ID_PARENT = '/keeper';
export const ENSEMBLE_ID_PATH = '/keeper/ensemble-id';
/** What an id may look like: it becomes a directory name. Keeper writes UUIDs. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$/;
const RETRY = { baseMs: 500, capMs: 10_000, jitter: [0.5, 1.5] } as const;

export class EnsembleIdentity implements EnsembleIdentityReader {
  private id: string | null = null;
  private problem: string | null = null;
  private pending: Promise<string> | null = null;
  private closed = false;

  constructor(
    private readonly gateway: ZkGateway,
    private readonly mutations: ZkMutations,
    private readonly log: Logger,
  ) {}

  /** The id, once read (or created); null until then. */
  current(): string | null {
    return this.id;
  }

  /** Why it is not known yet, in words (the last failure), or null. */
  whyUnknown(): string | null {
    return this.id !== null ? null : (this.problem ?? `${ENSEMBLE_ID_PATH} has not been read yet`);
  }

  /** Resolves once known, reading (and if need be creating) the marker, retried with jittered back-off until then. */
  whenKnown(): Promise<string> {
    this.pending ??= this.resolve();
    return this.pending;
  }

  close(): void {
    this.closed = true;
  }

  private async resolve(): Promise<string> {
    for (let round = 0; !this.closed; round++) {
      try {
        this.id = await this.readOrCreate();
        this.problem = null;
        this.log.info({ ensembleId: this.id }, "the ensemble's identity");
        return this.id;
      } catch (error) {
        this.problem = `${ENSEMBLE_ID_PATH} could not be read: ${toZkError(error).message}`;
        if (round === 0 || round % 10 === 0) this.log.warn({ err: error }, "the ensemble's identity is not known yet: retrying");
        await sleep(backoffDelay(round, RETRY));
      }
    }
    throw new Error('closed before the ensemble identity was known');
  }

  private async readOrCreate(): Promise<string> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await this.read();
      if (existing !== null) return existing;
      await this.createIfMissing(ENSEMBLE_ID_PARENT, Buffer.alloc(0));
      // Two Keepers may race: the one whose create lost reads the winner's id on the next round.
      await this.createIfMissing(ENSEMBLE_ID_PATH, Buffer.from(randomUUID()));
    }
    throw new Error(`${ENSEMBLE_ID_PATH} kept changing`);
  }

  private async read(): Promise<string | null> {
    try {
      const value = (await this.gateway.getData(ENSEMBLE_ID_PATH)).data.toString('utf8').trim();
      if (!SAFE_ID.test(value))
        throw new Error(`${ENSEMBLE_ID_PATH} holds ${JSON.stringify(value.slice(0, 80))}, not an id Keeper can use: delete it to have a new one made`);
      return value;
    } catch (error) {
      if (toZkError(error).code === 'NO_NODE') return null;
      throw error;
    }
  }

  private async createIfMissing(at: string, data: Buffer): Promise<void> {
    try {
      await this.mutations.create(at, data, zookeeper.CreateMode.PERSISTENT);
    } catch (error) {
      if (toZkError(error).code !== 'NODE_EXISTS') throw error;
    }
  }
}

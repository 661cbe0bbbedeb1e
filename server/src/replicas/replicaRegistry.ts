/**
 * Replicas know each other: each registers `<root>/replicas/<id>`, an ephemeral znode of its
 * state session holding its name, URL, version and start time. ZooKeeper deletes it when that
 * session ends (a clean close at once, a killed process after the session timeout), so the
 * children of `<root>/replicas` are the replicas alive as far as ZooKeeper knows.
 *
 * After an expiry the gateway opens a new session and the znode is gone: the replica registers
 * again, same id and start time. A znode still owned by its previous session (the server may not
 * have reaped it yet) is deleted at its version and made again, and every registration is checked
 * to be owned by the current session before it counts (a create whose reply was lost is read
 * back by bytes, which the old session's znode would match too).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import zookeeper from 'node-zookeeper-client';
import { backoffDelay, normalizeSessionId, replicaRegistrationSchema, type Backoff, type Replica, type ReplicaRegistration } from '@keeper/shared';
import { toZkError } from '../zk/errors.js';
import type { ReplicaStore } from './replicaStore.js';

/** The registry's bound: more replicas than this are refused a registration (docs/operating/replicas.md). */
export const MAX_REPLICAS = 64;

/** A registry entry as ZooKeeper holds it; the answer adds health, poller and upgrades (replicas.ts). */
export type RegisteredReplica = Omit<Replica, 'health' | 'poller' | 'upgrades'>;
const REGISTER_RETRY: Backoff = { baseMs: 200, capMs: 5_000, jitter: [0.5, 1] };

export class ReplicaRegistry {
  private registeredFor: string | null = null;
  /** Why the last registration attempt failed, in words; null once registered. */
  private problem: string | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private rootReady = false;
  private readonly onSession = () => this.ensureRegistered();

  constructor(
    private readonly store: ReplicaStore,
    readonly self: ReplicaRegistration,
    private readonly log: Logger,
  ) {}

  get dir(): string {
    return this.store.path('replicas');
  }

  get znode(): string {
    return this.store.path('replicas', this.self.id);
  }

  /** The session this replica's znode belongs to now (hex), or null while it is not registered. */
  get registeredSession(): string | null {
    return this.registeredFor;
  }

  /** Why this replica is not registered, in words (null when it is). */
  whyNotRegistered(): string | null {
    if (this.registeredFor !== null && this.registeredFor === this.currentSession()) return null;
    return this.problem ?? `not registered yet (state session ${this.store.gateway.session.state})`;
  }

  /** Registers now and again after every new session. */
  start(): void {
    this.store.gateway.on('session', this.onSession);
    this.ensureRegistered();
  }

  close(): void {
    this.closed = true;
    this.store.gateway.off('session', this.onSession);
  }

  /** Every registered replica, read now (the children and each one's value and ZooKeeper stat). */
  async list(): Promise<RegisteredReplica[]> {
    const names = (await this.store.children(this.dir)).slice(0, MAX_REPLICAS);
    const read = await Promise.all(names.map((name) => this.store.read(this.store.path('replicas', name), replicaRegistrationSchema).catch(() => null)));
    return read
      .filter((r): r is NonNullable<typeof r> => r !== null)
      .map(({ value, stat }) => ({ ...value, self: value.id === this.self.id, registeredAt: stat.ctime, sessionId: stat.ephemeralOwner }))
      .sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
  }

  private currentSession(): string | null {
    const session = this.store.gateway.session;
    return session.state === 'connected' && session.sessionId ? normalizeSessionId(session.sessionId) : null;
  }

  /** One registration loop at a time; it runs until the current session holds the znode. */
  private ensureRegistered(): void {
    const session = this.currentSession();
    if (this.closed || session === null || session === this.registeredFor) return;
    this.running ??= this.registerLoop().finally(() => {
      this.running = null;
      // The session may have changed while the loop ran.
      this.ensureRegistered();
    });
  }

  private async registerLoop(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      const session = this.currentSession();
      if (session === null || session === this.registeredFor) return;
      try {
        await this.registerOnce(session);
        this.registeredFor = session;
        this.problem = null;
        this.log.info({ replica: this.self.id, session }, 'replica registered');
        return;
      } catch (error) {
        this.problem = error instanceof Error ? error.message : String(error);
        if (attempt === 0 || attempt % 10 === 0) this.log.warn({ err: error, replica: this.self.id }, 'replica registration failed: retrying');
        await sleep(backoffDelay(attempt, REGISTER_RETRY));
      }
    }
  }

  private async registerOnce(session: string): Promise<void> {
    if (!this.rootReady) {
      await this.store.ensureRoot();
      await this.store.createIfMissing(this.dir, {});
      this.rootReady = true;
    }
    for (let round = 0; round < 3; round++) {
      const existing = await this.store.stat(this.znode);
      if (existing && normalizeSessionId(existing.ephemeralOwner) === session) return;
      // Left by this replica's previous session: ours by id, so ours to replace.
      if (existing) await this.store.remove(this.znode, existing.version);
      else if ((await this.store.children(this.dir)).length >= MAX_REPLICAS) throw new Error(`${MAX_REPLICAS} replicas are registered already`);
      try {
        await this.store.create(this.znode, this.self, zookeeper.CreateMode.EPHEMERAL);
      } catch (error) {
        if (toZkError(error).code !== 'NODE_EXISTS') throw error;
      }
    }
    throw new Error(`${this.znode} kept changing hands`);
  }
}

/**
 * The replicas' shared state in the home ensemble (docs/operating/replicas.md): the only code that writes
 * under the root. JSON values, each at most 64 KiB (well under jute.maxbuffer), every znode
 * created with the replicas' ACL (ACLs are per znode, not inherited).
 *
 * Writes are compare-and-set: a create fails on NODE_EXISTS, a set or delete names the version
 * read. CONNECTION_LOSS is not failure: zk/mutations.ts reads the znode back and says what
 * happened (a versioned write proven not applied is re-sent once). What provably never left
 * (not connected, the request queue full) is retried here with jittered backoff, within one
 * deadline for the whole operation; every single call also has the gateway's own deadline.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import zookeeper from 'node-zookeeper-client';
import { z } from 'zod';
import { pick } from 'zod/mini';
import { backoffDelay, replicaRegistrationSchema, type Backoff, type ZnodeStat } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import { ZkError, toZkError } from '../zk/errors.js';
import type { AclEntry, ZkMutations } from '../zk/mutations.js';
import { describeAcl, rootAclChange, sameAcl } from './rootAcl.js';

/** Every value's cap: the audit batches are the only ones this big, the rest a few hundred bytes. */
export const MAX_VALUE_BYTES = 64 * 1024;
const DEFAULT_DEADLINE_MS = 10_000;
/** Retrying what never reached ZooKeeper, and a compare-and-set that lost a race: 0.1 s × 2ⁿ, ≤ 2 s, 50–100 %. */
const RETRY: Backoff = { baseMs: 100, capMs: 2_000, jitter: [0.5, 1] };
/** The walk that sets a changed ACL on every znode under the root stops past this many (the layout's bounds are about 45,000). */
const MAX_ACL_WALK = 100_000;
/** Znodes handled at once by that walk (the gateway caps what is in flight anyway). */
const ACL_WALK_BATCH = 16;
/**
 * The key of the mark `update` writes into an object value: which write this is. A write whose reply
 * was lost is read back and called applied when the znode holds its bytes at the next version; two
 * replicas that read the same value and change it alike (a counter: n + 1) write the same bytes,
 * so without the mark the loser would take the winner's write for its own and the change would be
 * lost. `decode` drops it before the schema sees the value.
 */
const WRITE_MARK = '~write';
/** Failures that prove the request was never sent: safe to send again. */
const NEVER_SENT = new Set(['NOT_CONNECTED', 'OVERLOADED']);

export interface Stored<T> {
  value: T;
  stat: ZnodeStat;
}

export type CasResult<T> = { ok: true; stat: ZnodeStat } | { ok: false; current: Stored<T> | null };

export interface ReplicaStoreOptions {
  gateway: ZkGateway;
  mutations: ZkMutations;
  root: string;
  acl: AclEntry[];
  log: Logger;
  /** One operation's deadline, its retries included. */
  deadlineMs?: number;
  /** This replica's id in `<root>/replicas` (not counted among the others when the identities change). */
  replicaId?: string;
}

export class ReplicaStore {
  readonly root: string;
  readonly gateway: ZkGateway;
  private readonly mutations: ZkMutations;
  private readonly acl: AclEntry[];
  private readonly log: Logger;
  private readonly deadlineMs: number;
  private readonly replicaId: string | null;
  private closed = false;
  /** The one ensureRoot under way: every shared part asks at start, and one check (or walk) answers them all. */
  private rootInFlight: Promise<void> | null = null;

  constructor(options: ReplicaStoreOptions) {
    this.root = options.root;
    this.gateway = options.gateway;
    this.mutations = options.mutations;
    this.acl = options.acl;
    this.log = options.log;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.replicaId = options.replicaId ?? null;
  }

  /** `<root>/a/b` from segments (each a znode name, never containing "/"). */
  path(...segments: string[]): string {
    for (const s of segments) if (s === '' || s.includes('/')) throw new ZkError('INVALID_PATH', `invalid name ${JSON.stringify(s)} under ${this.root}`);
    return [this.root, ...segments].join('/');
  }

  close(): void {
    this.closed = true;
  }

  /**
   * The root with its ACL, its ancestors made (open, as `/keeper` is made by every Keeper) when
   * missing. A root that exists with another ACL is not taken over: it throws, naming both ACLs.
   * One exception: the same digest entry with other x509/sasl entries is `replicas.identities`
   * changed, and once no other replica is registered (none runs with the old list) this replica
   * sets the new ACL on the root and every znode under it.
   */
  ensureRoot(): Promise<void> {
    this.rootInFlight ??= this.makeRoot().finally(() => (this.rootInFlight = null));
    return this.rootInFlight;
  }

  private async makeRoot(): Promise<void> {
    const parts = this.root.split('/').slice(1);
    for (let i = 1; i < parts.length; i++) await this.createOpenIfMissing(`/${parts.slice(0, i).join('/')}`);
    try {
      await this.createIfMissing(this.root, { layout: 1 });
    } catch (error) {
      if (toZkError(error).code === 'NO_AUTH') throw this.notOurs(`cannot create under ${this.root}'s parent (NO_AUTH)`);
      throw error;
    }
    let found: AclEntry[];
    try {
      found = (await this.retrying('getACL', () => this.mutations.getACL(this.root))).acl;
    } catch (error) {
      if (toZkError(error).code === 'NO_AUTH')
        throw this.notOurs(
          `${this.root} exists and this replica may not read its ACL: the cluster secret does not match the one ${this.root} was created with`,
        );
      throw error;
    }
    const change = rootAclChange(found, this.acl);
    if (change === 'same') return;
    const ours = this.describe(this.acl);
    if (change === 'foreign')
      throw this.notOurs(
        `${this.root} exists with the ACL ${this.describe(found)}, not the replicas' own (${ours}): ` +
          'Keeper does not take over a znode it did not make; delete it or choose another replicas.root',
      );
    const others = await this.otherReplicas();
    if (others.length > 0)
      throw this.notOurs(
        `${this.root} has the ACL ${this.describe(found)}, and this replica's replicas.identities make it ${ours}; ` +
          `${others.length} replica(s) registered with the old list still run (${others.slice(0, 5).join(', ')}): ` +
          `stop every replica, then start them with the new identities; the first one sets the new ACL on ${this.root} and every znode under it`,
      );
    const changed = await this.setAclEverywhere();
    this.log.warn({ root: this.root, from: this.describe(found), to: ours, znodes: changed }, 'replicas: identities changed; set the new ACL under the root');
  }

  /** The value at `path` parsed with `schema`, with its stat; null when there is no znode. */
  async read<T>(path: string, schema: z.core.$ZodType<T>): Promise<Stored<T> | null> {
    try {
      const { data, stat } = await this.gateway.getData(path, { deadlineMs: this.deadlineMs });
      return { value: this.decode(path, data, schema), stat };
    } catch (error) {
      if (toZkError(error).code === 'NO_NODE') return null;
      throw toZkError(error, path);
    }
  }

  /** The names under `path` ([] when it does not exist). */
  async children(path: string): Promise<string[]> {
    try {
      return (await this.gateway.getChildren(path, { deadlineMs: this.deadlineMs })).children;
    } catch (error) {
      if (toZkError(error).code === 'NO_NODE') return [];
      throw toZkError(error, path);
    }
  }

  /** The znode's stat (ephemeralOwner, ctime, version); null when there is none. */
  stat(path: string): Promise<ZnodeStat | null> {
    return this.gateway.exists(path, { deadlineMs: this.deadlineMs });
  }

  /** Creates the znode with the replicas' ACL; NODE_EXISTS when it is there (a lost reply is read back by mutations). */
  async create(path: string, value: unknown, mode: number = zookeeper.CreateMode.PERSISTENT): Promise<string> {
    return this.createBytes(path, this.encode(path, value), mode);
  }

  private async createBytes(path: string, data: Buffer, mode: number = zookeeper.CreateMode.PERSISTENT): Promise<string> {
    return (await this.retrying('create', () => this.mutations.create(path, data, mode, this.acl))).value;
  }

  async createIfMissing(path: string, value: unknown): Promise<void> {
    try {
      await this.create(path, value);
    } catch (error) {
      if (toZkError(error).code !== 'NODE_EXISTS') throw error;
    }
  }

  /** Sets the value if the znode is still at `version`; otherwise what is there now (null: gone). */
  async compareAndSet<T>(path: string, value: T, version: number, schema: z.core.$ZodType<T>): Promise<CasResult<T>> {
    return this.compareAndSetBytes(path, this.encode(path, value), version, schema);
  }

  private async compareAndSetBytes<T>(path: string, data: Buffer, version: number, schema: z.core.$ZodType<T>): Promise<CasResult<T>> {
    try {
      const outcome = await this.retrying('setData', () => this.mutations.setData(path, data, version));
      return { ok: true, stat: outcome.value };
    } catch (error) {
      const code = toZkError(error).code;
      // OUTCOME_UNKNOWN: the reply was lost and someone changed it since; either way ours is not what is there.
      if (code === 'BAD_VERSION' || code === 'NO_NODE' || code === 'OUTCOME_UNKNOWN') return { ok: false, current: await this.read(path, schema) };
      throw error;
    }
  }

  /**
   * Read, change, compare-and-set, again from what is there while another replica wins the race
   * (with jittered backoff), until the deadline. `change` gets null when the znode is missing and
   * returns the new value (created then). Returns what was written. Each write of an object value
   * carries a mark of its own (WRITE_MARK), so a lost reply is never confused with another
   * replica's identical change.
   */
  async update<T>(path: string, schema: z.core.$ZodType<T>, change: (current: T | null) => T | Promise<T>): Promise<Stored<T>> {
    const deadlineAt = Date.now() + this.deadlineMs;
    for (let attempt = 0; ; attempt++) {
      const current = await this.read(path, schema);
      const next = await change(current?.value ?? null);
      const data = this.encode(path, next, true);
      if (current === null) {
        try {
          await this.createBytes(path, data);
          const stat = await this.stat(path);
          if (stat) return { value: next, stat };
        } catch (error) {
          if (toZkError(error).code !== 'NODE_EXISTS') throw error;
        }
      } else {
        const result = await this.compareAndSetBytes(path, data, current.stat.version, schema);
        if (result.ok) return { value: next, stat: result.stat };
      }
      const delay = backoffDelay(attempt, RETRY);
      if (this.closed || Date.now() + delay >= deadlineAt) throw new ZkError('DEADLINE_EXCEEDED', `${path} kept changing under this update`, path);
      await sleep(delay);
    }
  }

  /** Deletes the znode if still at `version` (-1: any); false when it was already gone. */
  async remove(path: string, version: number): Promise<boolean> {
    try {
      await this.retrying('remove', () => this.mutations.remove(path, version));
      return true;
    } catch (error) {
      if (toZkError(error).code === 'NO_NODE') return false;
      throw error;
    }
  }

  /** The replicas registered now other than this one, by name (id when unreadable). */
  private async otherReplicas(): Promise<string[]> {
    const ids = (await this.children(this.path('replicas'))).filter((id) => id !== this.replicaId);
    const schema = pick(replicaRegistrationSchema, { name: true });
    return Promise.all(ids.map(async (id) => (await this.read(this.path('replicas', id), schema).catch(() => null))?.value.name ?? id));
  }

  /**
   * Sets this replica's ACL on every znode under the root, level by level, the root last (a walk
   * cut short leaves the root as it was, so the next start walks again). Each set names the ACL
   * version read (compare-and-set); a znode gone meanwhile is skipped. Returns how many changed.
   */
  private async setAclEverywhere(): Promise<number> {
    let changed = 0;
    let visited = 0;
    let level = [this.root];
    while (level.length > 0) {
      const next: string[] = [];
      for (let i = 0; i < level.length; i += ACL_WALK_BATCH) {
        await Promise.all(
          level.slice(i, i + ACL_WALK_BATCH).map(async (path) => {
            for (const child of await this.children(path)) next.push(`${path}/${child}`);
            if (path !== this.root && (await this.setAclIfDifferent(path))) changed++;
          }),
        );
      }
      visited += level.length;
      if (visited + next.length > MAX_ACL_WALK) throw this.notOurs(`more than ${MAX_ACL_WALK} znodes under ${this.root}: not what Keeper keeps there`);
      level = next;
    }
    if (await this.setAclIfDifferent(this.root)) changed++;
    return changed;
  }

  private async setAclIfDifferent(path: string): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: { acl: AclEntry[]; stat: ZnodeStat };
      try {
        current = await this.retrying('getACL', () => this.mutations.getACL(path));
      } catch (error) {
        if (toZkError(error).code === 'NO_NODE') return false;
        throw error;
      }
      if (sameAcl(current.acl, this.acl)) return false;
      try {
        await this.retrying('setACL', () => this.mutations.setACL(path, this.acl, current.stat.aversion));
        return true;
      } catch (error) {
        const code = toZkError(error).code;
        if (code === 'NO_NODE') return false;
        // Another replica set it meanwhile (BAD_VERSION), or the reply was lost (OUTCOME_UNKNOWN): read it again.
        if (code !== 'BAD_VERSION' && code !== 'OUTCOME_UNKNOWN') throw error;
      }
    }
    throw new ZkError('DEADLINE_EXCEEDED', `the ACL of ${path} kept changing`, path);
  }

  private describe(acl: readonly AclEntry[]): string {
    return describeAcl(acl, this.acl[0]);
  }

  private async createOpenIfMissing(path: string): Promise<void> {
    try {
      await this.retrying('create', () => this.mutations.create(path, Buffer.alloc(0), zookeeper.CreateMode.PERSISTENT));
    } catch (error) {
      if (toZkError(error).code !== 'NODE_EXISTS') throw error;
    }
  }

  /** Sends again what provably never left, with jittered backoff, until the operation's deadline. */
  private async retrying<T>(op: string, send: () => Promise<T>): Promise<T> {
    const deadlineAt = Date.now() + this.deadlineMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        const zkError = toZkError(error);
        const delay = backoffDelay(attempt, RETRY);
        if (!NEVER_SENT.has(zkError.code) || this.closed || Date.now() + delay >= deadlineAt) throw zkError;
        if (attempt === 0) this.log.debug({ op, code: zkError.code }, 'replica store: not sent; retrying');
        await sleep(delay);
      }
    }
  }

  /** JSON; `marked`: an object value with this write's own WRITE_MARK (see `update`). */
  private encode(path: string, value: unknown, marked = false): Buffer {
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    const written = marked && isObject ? { ...value, [WRITE_MARK]: randomBytes(6).toString('base64url') } : value;
    const data = Buffer.from(JSON.stringify(written), 'utf8');
    if (data.length > MAX_VALUE_BYTES)
      throw new ZkError('DATA_TOO_LARGE', `${path}: ${data.length} bytes, over the replicas' ${MAX_VALUE_BYTES}-byte cap per value`, path);
    return data;
  }

  private decode<T>(path: string, data: Buffer, schema: z.core.$ZodType<T>): T {
    let json: unknown;
    try {
      json = JSON.parse(data.toString('utf8'));
    } catch {
      throw new ZkError('BAD_VALUE', `${path} does not hold JSON`, path);
    }
    if (typeof json === 'object' && json !== null && WRITE_MARK in json) delete (json as Record<string, unknown>)[WRITE_MARK];
    const parsed = z.safeParse(schema, json);
    if (!parsed.success) throw new ZkError('BAD_VALUE', `${path} does not hold what Keeper wrote there: ${parsed.error.issues[0]?.message ?? 'invalid'}`, path);
    return parsed.data;
  }

  private notOurs(message: string): Error {
    return new Error(`replicas: ${message}`);
  }
}

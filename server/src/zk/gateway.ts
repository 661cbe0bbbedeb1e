/**
 * The ZooKeeper gateway for one ensemble: ONE session shared by every browser and API call.
 * It knows nothing of HTTP or sockets. It owns:
 *  - the console's session state machine and timeline (shared/consoleSession.ts);
 *  - replacing a dead handle after expiry (or presumed expiry while partitioned) and
 *    re-establishing every watch on the new session;
 *  - deadlines on every call, a cap on requests in flight, and retries with jittered
 *    back-off for idempotent reads only;
 *  - the watch registry (one ZooKeeper watch per znode, whatever the number of subscribers).
 */
import { sync as syncMember } from './sync.js';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type zookeeper from 'node-zookeeper-client';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  applySessionEvent,
  backoffDelay,
  checkPath,
  initialSessionSnapshot,
  isLive,
  type Backoff,
  type ConsoleConnectionFacts,
  type ConsoleSessionSnapshot,
  type SessionEvent,
  type ZnodeStat,
} from '@keeper/shared';
import { ZkConnection, type IdentityAnswer } from './connection.js';
import { saslIdentity, type SaslFactory, type SaslSettings } from './sasl.js';
import type { TlsMaterial } from './tlsMaterial.js';
import type { Trouble } from './wireExtension.js';
import { ReadOnlyPolicy, type MemberModesProbe } from './readOnlyPolicy.js';
import { ZkError, toZkError } from './errors.js';
import { RequestLimiter } from './requestLimiter.js';
import { toZnodeStat } from './stat.js';
import { WatchRegistry, type HeldZnode, type ZkWatchEvent } from './watchRegistry.js';
import { DEFAULT_CONFIRMATION, SessionConfirmation, type ConfirmationOptions } from './sessionConfirmation.js';

export interface GatewayOptions {
  name: string;
  connectionString: string;
  auth?: { scheme: 'digest'; credential: string }[];
  /** TLS to the members' client port (tlsMaterial.ts); absent: plain TCP. */
  tls?: TlsMaterial;
  /** SASL before any other request on every connection; absent: none. */
  sasl?: { settings: SaslSettings; factory: SaslFactory };
  /** canBeReadOnly in the connect request (default true). */
  canBeReadOnly?: boolean;
  /** What each member serves (srvr's Mode), asked while disconnected or read-only (readOnlyPolicy.ts); absent: never switch to read-only early. */
  memberModes?: MemberModesProbe;
  /** The server id of the member at host:port, when the ensemble's membership is known (for "member 3"). */
  memberIdOf?: (address: string) => number | null;
  /** Requested session timeout; the ensemble may grant less or more (2..20 ticks). */
  sessionTimeoutMs?: number;
  /** Default deadline for one call, retries included. */
  requestDeadlineMs?: number;
  maxInFlight?: number;
  maxQueued?: number;
  /** The liveness probe's timing (sessionConfirmation.ts); tests shorten it. */
  confirmation?: Partial<ConfirmationOptions>;
  logger: Logger;
}

/**
 * Retrying an idempotent read after a transient failure: 0.1 s, x2, capped at 2 s, as kazoo
 * and Curator do. At least half the delay is waited: a retry at once only meets the same
 * leader election or reconnect.
 */
export const READ_RETRY: Backoff = { baseMs: 100, capMs: 2_000, jitter: [0.5, 1] };
/** Opening a new session after the last one was lost: soon, but not in lock-step with other consoles. */
const REOPEN: Backoff = { baseMs: 100, capMs: 5_000, jitter: [0.5, 1] };
/** Credentials rarely fix themselves: try again slowly rather than hammer the ensemble. */
const REOPEN_AFTER_AUTH_FAILED: Backoff = { baseMs: 5_000, capMs: 60_000, jitter: [0.5, 1] };

/** How often the gateway looks at its session's confirmation: detection is this much later at worst. */
const CONFIRMATION_TICK_MS = 250;

/** The server id in a session id's top byte (ZooKeeper's SessionTrackerImpl.initializeNextSessionId); null for 0. */
export function serverIdOfSession(sessionId: string): number | null {
  try {
    const id = Number(BigInt.asUintN(64, BigInt(sessionId)) >> 56n);
    return id > 0 ? id : null;
  } catch {
    return null;
  }
}

export interface CallOptions {
  /** Overrides the default deadline (ms from now). */
  deadlineMs?: number;
  /** Arm a ZooKeeper watch that reports to the watch registry. */
  watch?: boolean;
}

interface GatewayEvents {
  session: [snapshot: ConsoleSessionSnapshot];
  /**
   * The session answered again, with no change of state: at most one per CONFIRMED_PUSH_MS, so a
   * view's "last answer" is never older than that while the session is live. Apart from `session`,
   * whose listeners act on changes (replica identities, polling hand-over), not on heartbeats.
   */
  confirmed: [snapshot: ConsoleSessionSnapshot];
  /** One request answered, refused or timed out: its op, `ok` or the error code, and how long it took (metrics). */
  call: [op: string, outcome: string, seconds: number];
}

/** How stale a live session's "last answer" may be in what browsers were sent. */
export const CONFIRMED_PUSH_MS = 5_000;

type Invoke<T> = (client: zookeeper.Client, watcher: ((event: ZkWatchEvent) => void) | undefined, done: (error: unknown, value?: T) => void) => void;

export class ZkGateway extends EventEmitter<GatewayEvents> {
  readonly name: string;
  readonly watches: WatchRegistry;
  private readonly log: Logger;
  private readonly limiter: RequestLimiter;
  private readonly deadlineMs: number;
  private snapshot: ConsoleSessionSnapshot;
  private connection: ZkConnection | null = null;
  private connectedWaiters = new Set<() => void>();
  private closed = false;
  private reopenAttempts = 0;
  private readonly confirmation: SessionConfirmation;
  private confirmationTimer: NodeJS.Timeout | null = null;
  /** The last answer from the ensemble on any of this gateway's connections (epoch ms; 0: none yet). */
  private confirmedAt = 0;
  /** The confirmedAt that `session` or `confirmed` last carried. */
  private confirmedPushed = 0;
  /** What the last `connected` event said, to restore it when an unconfirmed member answers again. */
  private lastConnected: Extract<SessionEvent, { kind: 'connected' }> | null = null;
  private calls = 0;
  /** The connection string sessions are opened with: the configured one until the configuration moves it (updateServers). */
  private servers: string;
  /** How the console reaches the ensemble and who it is there (merged into every snapshot). */
  private facts: ConsoleConnectionFacts;
  /** The last time the ensemble answered the console's session while read-write: "as of its last sync". */
  private lastReadWriteAt: number | null = null;
  /** The last trouble logged, so a retried failure is logged once a minute, not per attempt. */
  private lastLoggedTrouble: { note: string; at: number } | null = null;
  private readonly readOnlyPolicy: ReadOnlyPolicy | null;
  /** One function for every watch, so the client library and ZooKeeper both dedupe per path. */
  private readonly dispatchWatch = (event: ZkWatchEvent) => this.watches.onZkEvent(event);

  /** Subtrees no call of this session may reach (seal). */
  private readonly sealed: string[] = [];

  constructor(private readonly options: GatewayOptions) {
    super();
    this.name = options.name;
    this.servers = options.connectionString;
    this.log = options.logger.child({ ensemble: options.name });
    this.deadlineMs = options.requestDeadlineMs ?? 10_000;
    this.limiter = new RequestLimiter(options.maxInFlight ?? 64, options.maxQueued ?? 5_000);
    this.snapshot = initialSessionSnapshot(Date.now(), options.sessionTimeoutMs ?? 30_000);
    this.watches = new WatchRegistry(this, this.log);
    this.confirmation = new SessionConfirmation({ ...DEFAULT_CONFIRMATION, checkEveryMs: CONFIRMATION_TICK_MS, ...options.confirmation });
    this.readOnlyPolicy = options.memberModes && options.canBeReadOnly !== false ? new ReadOnlyPolicy(options.memberModes) : null;
    this.facts = {
      identity: null,
      identityNote: null,
      tls: options.tls?.describe() ?? null,
      sasl: options.sasl ? `${options.sasl.settings.mechanism} as ${saslIdentity(options.sasl.settings)}` : null,
      warning: options.tls?.warning() ?? null,
      problem: null,
      readOnly: null,
    };
  }

  /** How the console reaches the ensemble, who it is there, and the last TLS or SASL problem. */
  get connectionFacts(): ConsoleConnectionFacts {
    return this.facts;
  }

  /** The console's session, with the latest confirmed contact (browsers get it pushed on each change of state). */
  get session(): ConsoleSessionSnapshot {
    if (this.connection?.isConnected) this.confirmedAt = Math.max(this.confirmedAt, this.connection.lastAnswerAt);
    this.confirmedAt = Math.max(this.confirmedAt, this.snapshot.confirmedAt ?? 0);
    const confirmedAt = this.confirmedAt || null;
    return { ...this.snapshot, confirmedAt, connection: this.facts };
  }

  /** Liveness probes sent so far (one a second at most while idle); for tests and benches. */
  get probesSent(): number {
    return this.confirmation.probesSent;
  }

  /** Requests sent to ZooKeeper so far (each try of a retried read counts; liveness probes do not); for tests and benches. */
  get callsSent(): number {
    return this.calls;
  }

  /**
   * A znode some subscriber watches, as the watch registry holds it (see WatchRegistry.held),
   * with no ZooKeeper call; null when it holds nothing current, or the session is not
   * connected (watch events may not be arriving).
   */
  heldZnode(path: string): HeldZnode | null {
    if (this.snapshot.state !== 'connected' || !this.connection?.isConnected) return null;
    return this.watches.held(path);
  }

  /** Every znode heldZnode() answers for now: the watched ones that are current. */
  heldZnodes(): { path: string; held: HeldZnode }[] {
    return this.watches.watchedPathList().flatMap((path) => {
      const held = this.heldZnode(path);
      return held ? [{ path, held }] : [];
    });
  }

  get connectionString(): string {
    return this.servers;
  }

  /**
   * The members to connect to from now on (host:port each; the chroot is kept), as the ZooKeeper
   * client's updateServerList does after a reconfig: the live session stays where it is while its
   * member serves, and a reconnect (or a new session) picks from the new list. A member a resize
   * removed is never tried again. Returns the new connection string.
   */
  updateServers(hostPorts: readonly string[]): string {
    if (hostPorts.length === 0) throw new Error('updateServers needs at least one member');
    // The chroot is everything from the first '/' (host:port,host:port/app).
    const slash = this.servers.indexOf('/');
    const chroot = slash === -1 ? '' : this.servers.slice(slash);
    this.servers = `${hostPorts.join(',')}${chroot}`;
    this.connection?.updateServers(hostPorts);
    this.log.info({ connectionString: this.servers }, 'the connection string follows the ensemble configuration');
    return this.servers;
  }

  get outstandingRequests(): number {
    return this.limiter.outstanding;
  }

  /** The live session's id and password, for fault-injection tests (the FAQ's forced expiry); never sent anywhere. */
  sessionCredentials(): { sessionId: Buffer; password: Buffer } | null {
    const client = this.connection?.isConnected ? this.connection.client : null;
    return client ? { sessionId: client.getSessionId(), password: client.getSessionPassword() } : null;
  }

  start(): void {
    if (this.facts.warning) this.log.warn(this.facts.warning);
    this.openSession();
    this.confirmationTimer = setInterval(() => {
      this.checkConfirmation();
      this.checkReadOnly();
    }, CONFIRMATION_TICK_MS);
    this.confirmationTimer.unref();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.confirmationTimer) clearInterval(this.confirmationTimer);
    this.confirmationTimer = null;
    this.connection?.close();
    this.connection = null;
    this.transition({ kind: 'closed', at: Date.now() });
    for (const wake of this.connectedWaiters) wake();
    this.connectedWaiters.clear();
    this.watches.clear();
  }

  // ---- reads (idempotent: retried with back-off within the deadline) ----

  /**
   * ZooKeeper's sync (zk/sync.ts): the member this session is on catches up with the leader, so a
   * read sent after it sees every write acknowledged before. What a lost reply is checked with.
   */
  sync(opts: CallOptions = {}): Promise<null> {
    return this.read<null>('sync', '/', opts, (client, _watcher, done) => syncMember(client, (error) => done(error, null)));
  }

  exists(path: string, opts: CallOptions = {}): Promise<ZnodeStat | null> {
    return this.read<ZnodeStat | null>('exists', path, opts, (client, watcher, done) => {
      const cb = (error: unknown, stat?: zookeeper.Stat) => done(error, stat ? toZnodeStat(stat) : null);
      if (watcher) client.exists(path, watcher, cb);
      else client.exists(path, cb);
    });
  }

  getData(path: string, opts: CallOptions = {}): Promise<{ data: Buffer; stat: ZnodeStat }> {
    return this.read('getData', path, opts, (client, watcher, done) => {
      const cb = (error: unknown, data?: Buffer, stat?: zookeeper.Stat) =>
        error ? done(error) : done(null, { data: data ?? Buffer.alloc(0), stat: toZnodeStat(stat as zookeeper.Stat) });
      if (watcher) client.getData(path, watcher, cb);
      else client.getData(path, cb);
    });
  }

  getChildren(path: string, opts: CallOptions = {}): Promise<{ children: string[]; stat: ZnodeStat }> {
    return this.read('getChildren', path, opts, (client, watcher, done) => {
      const cb = (error: unknown, children?: string[], stat?: zookeeper.Stat) =>
        error ? done(error) : done(null, { children: children ?? [], stat: toZnodeStat(stat as zookeeper.Stat) });
      if (watcher) client.getChildren(path, watcher, cb);
      else client.getChildren(path, cb);
    });
  }

  /**
   * Refuses every call at or under `root` with NO_AUTH before it is sent, whatever this session's
   * identity. The home ensemble's console session gets the replicas' root sealed: with
   * `replicas.identities` it may present the very x509/sasl identity the root's ACL names, and no
   * browser may reach Keeper's shared state through the tree (docs/operating/replicas.md).
   */
  seal(root: string): void {
    if (root !== '/' && !this.sealed.includes(root)) this.sealed.push(root);
  }

  private checkSealed(op: string, path: string): void {
    for (const root of this.sealed)
      if (path === root || path.startsWith(`${root}/`))
        throw new ZkError('NO_AUTH', `${op} ${path}: ${root} holds the Keeper replicas' shared state, which no console session reads or changes`, path);
  }

  // ---- the call machinery ----

  /**
   * One attempt, never retried: for mutations, whose outcome after CONNECTION_LOSS must be
   * checked rather than assumed (zk/mutations.ts does that).
   */
  async callOnce<T>(
    op: string,
    path: string,
    invoke: (client: zookeeper.Client, done: (error: unknown, value?: T) => void) => void,
    opts: CallOptions = {},
  ): Promise<T> {
    const check = checkPath(path);
    if (!check.ok) throw new ZkError('INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`, path);
    this.checkSealed(op, path);
    const deadlineAt = Date.now() + (opts.deadlineMs ?? this.deadlineMs);
    return this.limiter.run(deadlineAt, () => this.attempt<T>(op, path, deadlineAt, undefined, (client, _watcher, done) => invoke(client, done)));
  }

  private async read<T>(op: string, path: string, opts: CallOptions, invoke: Invoke<T>): Promise<T> {
    const check = checkPath(path);
    if (!check.ok) throw new ZkError('INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`, path);
    this.checkSealed(op, path);
    const deadlineAt = Date.now() + (opts.deadlineMs ?? this.deadlineMs);
    const watcher = opts.watch ? this.dispatchWatch : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.limiter.run(deadlineAt, () => this.attempt(op, path, deadlineAt, watcher, invoke));
      } catch (error) {
        const zkError = toZkError(error, path);
        const delay = backoffDelay(attempt, READ_RETRY);
        if (!zkError.transient || this.closed || Date.now() + delay >= deadlineAt) throw zkError;
        await sleep(delay);
      }
    }
  }

  /** One try: wait for a live session (never queue in the library while disconnected), then call with a deadline. */
  private async attempt<T>(op: string, path: string, deadlineAt: number, watcher: ((event: ZkWatchEvent) => void) | undefined, invoke: Invoke<T>): Promise<T> {
    const connection = await this.whenConnected(deadlineAt);
    const began = performance.now();
    const settle = (outcome: string) => this.emit('call', op, outcome, (performance.now() - began) / 1000);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(
        () => {
          settled = true;
          settle('DEADLINE_EXCEEDED');
          reject(new ZkError('DEADLINE_EXCEEDED', `${op} ${path}: no answer within the deadline`, path));
        },
        Math.max(0, deadlineAt - Date.now()),
      );
      try {
        this.calls++;
        invoke(connection.client, watcher, (error, value) => {
          if (settled) return; // the deadline already answered; a late reply is dropped
          settled = true;
          clearTimeout(timer);
          if (error) {
            const zkError = toZkError(error, path);
            settle(zkError.code);
            reject(zkError);
          } else {
            settle('ok');
            resolve(value as T);
          }
        });
      } catch (error) {
        settled = true;
        clearTimeout(timer);
        const zkError = toZkError(error, path);
        settle(zkError.code);
        reject(zkError);
      }
    });
  }

  private whenConnected(deadlineAt: number): Promise<ZkConnection> {
    const ready = () => (this.connection && this.connection.isConnected ? this.connection : null);
    const now = ready();
    if (now) return Promise.resolve(now);
    if (this.closed) return Promise.reject(new ZkError('CLOSED', `ensemble ${this.name} is closed`));
    return new Promise((resolve, reject) => {
      const wake = () => {
        const connection = ready();
        if (connection) {
          cleanup();
          resolve(connection);
        } else if (this.closed) {
          cleanup();
          reject(new ZkError('CLOSED', `ensemble ${this.name} is closed`));
        }
      };
      const timer = setTimeout(
        () => {
          cleanup();
          const seconds = ((Date.now() - this.snapshot.since) / 1000).toFixed(1);
          reject(new ZkError('NOT_CONNECTED', `not connected to ensemble ${this.name} (${this.snapshot.state} for ${seconds} s)`));
        },
        Math.max(0, deadlineAt - Date.now()),
      );
      const cleanup = () => {
        clearTimeout(timer);
        this.connectedWaiters.delete(wake);
      };
      this.connectedWaiters.add(wake);
    });
  }

  // ---- session lifecycle ----

  /** Probes the member when due; says "unconfirmed" when it stops answering and "connected" the moment it answers again. */
  private checkConfirmation(): void {
    const connection = this.connection;
    if (this.closed || !connection?.isConnected) {
      this.confirmation.rest();
      return;
    }
    const now = Date.now();
    const { verdict, lastAnswerAt } = this.confirmation.check(connection, now, (error) => this.log.debug({ err: error }, 'liveness probe failed'));
    if (lastAnswerAt > this.confirmedAt) this.confirmedAt = lastAnswerAt;
    const state = this.snapshot.state;
    if (verdict === 'confirmed' && isLive(state) && this.confirmedAt - this.confirmedPushed >= CONFIRMED_PUSH_MS) {
      this.publish('confirmed');
    }
    if (state === 'connected' && verdict === 'confirmed') this.lastReadWriteAt = Math.max(this.lastReadWriteAt ?? 0, lastAnswerAt);
    if (verdict === 'unconfirmed' && (state === 'connected' || state === 'readOnly')) {
      const silentFor = ((now - lastAnswerAt) / 1000).toFixed(1);
      this.transition({ kind: 'unconfirmed', at: now, note: `no answer from ${connection.member ?? 'the member'} for ${silentFor} s` });
    } else if (verdict === 'confirmed' && state === 'unconfirmed' && this.lastConnected) {
      // Connected again from the moment of its answer, which is also the new confirmation time.
      this.transition({ ...this.lastConnected, at: lastAnswerAt });
    }
  }

  /** Read-only when the ensemble has lost quorum, read-write again when it is back (readOnlyPolicy.ts). */
  private checkReadOnly(): void {
    const connection = this.connection;
    if (!this.readOnlyPolicy || !connection || connection.isDead || this.closed) return;
    this.readOnlyPolicy.tick(this.snapshot.state, this.snapshot.since, Date.now(), {
      openReadOnly: (member) => {
        if (this.connection !== connection || connection.isDead || connection.isConnected) return;
        const note = `no member serves with quorum; ${this.memberName(member)} serves read-only: opening a read-only session there (ZooKeeper does not resume a session made with quorum on a read-only member)`;
        this.log.warn({ member }, note);
        this.transition({ kind: 'connecting', at: Date.now(), note });
        connection.openReadOnlySession(member, note);
      },
      moveTo: (member) => {
        if (this.connection !== connection || this.snapshot.state !== 'readOnly') return;
        const note = `${this.memberName(member)} serves with quorum again: moving there from the read-only member (a new session)`;
        this.log.info({ member }, note);
        connection.moveTo(member, note);
      },
    });
  }

  private memberName(address: string): string {
    const id = this.options.memberIdOf?.(address) ?? null;
    return id === null ? address : `member ${id} (${address})`;
  }

  private openSession(): void {
    if (this.closed) return;
    const connection = new ZkConnection({
      connectionString: this.servers,
      sessionTimeoutMs: this.options.sessionTimeoutMs ?? 30_000,
      ...(this.options.auth ? { auth: this.options.auth } : {}),
      tls: this.options.tls ?? null,
      sasl: this.options.sasl ?? null,
      canBeReadOnly: this.options.canBeReadOnly ?? true,
    });
    this.connection = connection;
    // Events from a handle we have abandoned are ignored: only the current one speaks.
    const current = () => this.connection === connection && !this.closed;
    connection.on('connected', (info) => {
      if (!current()) return;
      this.reopenAttempts = 0;
      const previous = this.snapshot.sessionId;
      const isNewSession = this.snapshot.sessionsOpened > 0 && info.sessionId !== previous;
      this.lastConnected = { kind: 'connected', at: Date.now(), ...info };
      this.confirmedAt = Math.max(this.confirmedAt, this.lastConnected.at);
      if (!info.readOnly) this.lastReadWriteAt = this.lastConnected.at;
      this.setFacts({
        problem: null,
        identity: null,
        identityNote: null,
        readOnly: info.readOnly
          ? {
              member: info.member,
              // A read-only member opens the session itself, and a session id starts with its maker's server id.
              memberId: (info.member ? this.options.memberIdOf?.(info.member) : null) ?? serverIdOfSession(info.sessionId),
              lastReadWriteAt: this.lastReadWriteAt,
            }
          : null,
      });
      this.transition(this.lastConnected);
      for (const wake of [...this.connectedWaiters]) wake();
      if (isNewSession) {
        this.log.warn({ sessionId: info.sessionId }, 'new session: re-establishing watches');
        this.watches.rearmAll();
      }
    });
    connection.on('disconnected', ({ note }) => {
      if (!current()) return;
      const readOnlyMember = this.snapshot.state === 'readOnly' || (this.snapshot.state === 'unconfirmed' && this.facts.readOnly) ? connection.member : null;
      if (readOnlyMember === null) {
        this.transition({ kind: 'disconnected', at: Date.now(), note });
        return;
      }
      // A read-only session is local to the member that opened it: no other member resumes it, and
      // the member itself drops it when it stops its read-only service (it does each time its
      // election tries again: every ~10 s with two of three members frozen). Said so, never as a
      // session that may still be saved; and the next attempt asks that member for a new session
      // first, not members that did not answer (a frozen one costs a whole handshake timeout).
      // Named by the id the read-only facts hold (the session id starts with its maker's server id), known even when the poller has no ids yet.
      const id = this.facts.readOnly?.memberId ?? null;
      const who = id !== null ? `member ${id} (${readOnlyMember})` : this.memberName(readOnlyMember);
      const why = `${note}: the read-only session was local to ${who} and ends with its connection; reads come back with a new read-only session`;
      this.transition({ kind: 'disconnected', at: Date.now(), note: why });
      connection.openReadOnlySession(readOnlyMember, why);
    });
    connection.on('expired', ({ note }) => {
      if (!current()) return;
      this.transition({ kind: 'expired', at: Date.now(), note });
      this.replaceSession(0);
    });
    connection.on('authFailed', ({ note }) => {
      if (!current()) return;
      this.transition({ kind: 'authFailed', at: Date.now(), note });
      this.replaceSession(Math.max(5_000, backoffDelay(this.reopenAttempts++, REOPEN_AFTER_AUTH_FAILED)));
    });
    connection.on('trouble', (trouble) => {
      if (current()) this.onTrouble(trouble);
    });
    connection.on('identity', (answer) => {
      if (current()) this.onIdentity(answer);
    });
    connection.on('contained', ({ what, error }) => this.log.warn({ err: error }, `zookeeper client: ${what}`));
    this.transition({ kind: 'connecting', at: Date.now() });
    connection.connect();
  }

  private onTrouble(trouble: Trouble): void {
    const now = Date.now();
    const last = this.lastLoggedTrouble;
    if (!last || last.note !== trouble.note || now - last.at > 60_000) {
      this.lastLoggedTrouble = { note: trouble.note, at: now };
      this.log.warn({ member: trouble.member, kind: trouble.kind }, trouble.note);
    }
    this.setFacts({ problem: { kind: trouble.kind, message: trouble.note, member: trouble.member, at: now } });
  }

  private onIdentity(answer: IdentityAnswer): void {
    if (answer.ok) {
      this.log.info({ identity: answer.identities.map((i) => `${i.scheme}:${i.id}`) }, 'the ensemble sees the console as');
      this.setFacts({ identity: answer.identities, identityNote: null });
    } else {
      this.setFacts({ identity: null, identityNote: answer.reason });
    }
  }

  /** Sends the snapshot to the listeners of `event`, noting the last answer it carried. */
  private publish(event: 'session' | 'confirmed'): void {
    const snapshot = this.session;
    this.confirmedPushed = snapshot.confirmedAt ?? 0;
    this.emit(event, snapshot);
  }

  private setFacts(change: Partial<ConsoleConnectionFacts>): void {
    this.facts = { ...this.facts, ...change };
    this.publish('session');
  }

  private replaceSession(delayMs: number): void {
    this.connection?.close();
    const delay = delayMs || backoffDelay(this.reopenAttempts++, REOPEN);
    setTimeout(() => this.openSession(), delay).unref();
  }

  private transition(event: SessionEvent): void {
    // The last answer may be newer than the last look (a disconnect can come between two ticks).
    if (this.connection) this.confirmedAt = Math.max(this.confirmedAt, this.connection.lastAnswerAt);
    const next = applySessionEvent(this.snapshot, this.confirmedAt ? { ...event, confirmedAt: this.confirmedAt } : event);
    if (next === this.snapshot) return;
    this.snapshot = next;
    this.log.info({ state: next.state, sessionId: next.sessionId, member: next.member, note: 'note' in event ? event.note : undefined }, 'session state');
    this.publish('session');
  }
}

/**
 * One node-zookeeper-client handle, i.e. one ZooKeeper session attempt, with the library's
 * defects contained (see the project notes, "Defects to contain"):
 *  - unknown error codes: patched in nzcPatches.ts (imported here, so any use is covered);
 *  - a throw from the socket data handler is caught and turned into a reconnect;
 *  - a stalled member (process stopped, TCP still open) is detected by the absence of any
 *    bytes for 2/3 of the session timeout (the Java client's read timeout) and the socket
 *    is dropped, so the library moves to the next member while the session is still alive;
 *  - a handshake to a member that accepts TCP but never answers is dropped after the
 *    connect timeout (session timeout / members);
 *  - disconnected for longer than the session timeout means the session is lost (the
 *    library would wait forever to be told): reported as 'lost', like Curator does.
 * TLS sockets, the read-only flag, SASL before the session is usable and frames the library
 * cannot read are added in wireExtension.ts; whoAmI is asked after every connect (whoAmI.ts).
 * After 'expired', 'lost' or 'authFailed' the handle is dead: the gateway replaces it.
 */
import { EventEmitter } from 'node:events';
import zookeeper from 'node-zookeeper-client';
import { formatSessionId } from '@keeper/shared';
import './nzcPatches.js';
import type { ClientInfo } from './protocol.js';
import type { SaslFactory, SaslSettings } from './sasl.js';
import type { TlsMaterial } from './tlsMaterial.js';
import { whoAmI } from './whoAmI.js';
import { CM_STATES, WireExtension, type ConnectionManagerInternals, type ServerAddress, type Trouble } from './wireExtension.js';

export interface ConnectionOptions {
  connectionString: string;
  sessionTimeoutMs: number;
  auth?: { scheme: 'digest'; credential: string }[];
  /** TLS to the client port (null or absent: plain TCP). */
  tls?: TlsMaterial | null;
  /** SASL before any other request (null or absent: none). */
  sasl?: { settings: SaslSettings; factory: SaslFactory } | null;
  /** canBeReadOnly in the connect request (default true): a member without quorum in read-only mode may serve reads. */
  canBeReadOnly?: boolean;
  /** How often the watchdog looks at the socket; small in tests. */
  watchdogIntervalMs?: number;
  /** Resume this session instead of opening a new one (the FAQ's forced expiry in tests). */
  session?: { id: Buffer; password: Buffer };
}

/** What whoAmI said after the latest connect: the identities, or why there are none. */
export type IdentityAnswer = { ok: true; identities: ClientInfo[] } | { ok: false; reason: string };

export interface ConnectionEvents {
  connected: [info: { sessionId: string; member: string | null; timeoutMs: number; readOnly: boolean }];
  disconnected: [info: { note: string }];
  /** The session is gone: expired by the ensemble, or disconnected past its timeout. */
  expired: [info: { note: string }];
  authFailed: [info: { note: string }];
  /** A TLS, SASL or handshake problem on one connection attempt, in the operator's words. */
  trouble: [trouble: Trouble];
  /** whoAmI's answer after a connect (each connect: SASL and the address are per connection). */
  identity: [answer: IdentityAnswer];
  /** Something the library did that we contained; for logs. */
  contained: [info: { what: string; error?: unknown }];
}

const CM_STATE_CONNECTING = CM_STATES.CONNECTING;
const CM_STATE_CONNECTED = CM_STATES.CONNECTED;
const CM_STATE_CONNECTED_READ_ONLY = CM_STATES.CONNECTED_READ_ONLY;

export class ZkConnection extends EventEmitter<ConnectionEvents> {
  readonly client: zookeeper.Client;
  private readonly cm: ConnectionManagerInternals;
  private lastProgressAt = Date.now();
  private lastAnswer = 0;
  private disconnectedSince: number | null = null;
  private everConnected = false;
  private currentServer: ServerAddress | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private dead = false;
  private readonly wire: WireExtension;
  /** The last fatal SASL refusal: what AUTH_FAILED means this time. */
  private refusal: string | null = null;

  constructor(private readonly options: ConnectionOptions) {
    super();
    // retries: 0 — the library would re-send non-idempotent creates on CONNECTION_LOSS.
    this.client = zookeeper.createClient(options.connectionString, {
      sessionTimeout: options.sessionTimeoutMs,
      spinDelay: 1000,
      retries: 0,
      ...(options.session ? { sessionId: options.session.id, sessionPassword: options.session.password } : {}),
    } as Partial<zookeeper.Option>);
    this.cm = (this.client as unknown as { connectionManager: ConnectionManagerInternals }).connectionManager;
    this.wire = new WireExtension(this.cm, {
      tls: options.tls ?? null,
      sasl: options.sasl ?? null,
      canBeReadOnly: options.canBeReadOnly ?? true,
      onProgress: () => {
        this.lastProgressAt = Date.now();
      },
      onTrouble: (trouble) => {
        if (trouble.fatal) this.refusal = trouble.note;
        if (!this.dead) this.emit('trouble', trouble);
      },
    });
    this.instrument();
    for (const { scheme, credential } of options.auth ?? []) {
      this.client.addAuthInfo(scheme, Buffer.from(credential));
    }
    this.client.on('state', (state: { name: string }) => this.onState(state.name));
  }

  connect(): void {
    this.disconnectedSince = Date.now();
    this.client.connect();
    this.watchdog = setInterval(() => this.checkLiveness(), this.options.watchdogIntervalMs ?? 250);
    this.watchdog.unref();
  }

  /**
   * The library's list of members to (re)connect to, replaced in place: it has no
   * updateServerList. The session stays on its member; the next connect attempt starts at the
   * list's beginning, so a member removed from the ensemble is never tried again.
   */
  updateServers(hostPorts: readonly string[]): void {
    const servers = hostPorts.map((hp) => {
      const cut = hp.lastIndexOf(':');
      return { host: hp.slice(0, cut).replace(/^\[|\]$/g, ''), port: Number(hp.slice(cut + 1)) };
    });
    this.cm.servers = servers;
    this.cm.nextServerIndex = 0;
    this.cm.serverAttempts = 0;
  }

  /** host:port of the member the session is on (or being opened on). */
  get member(): string | null {
    return this.currentServer ? `${this.currentServer.host}:${this.currentServer.port}` : null;
  }

  get isDead(): boolean {
    return this.dead;
  }

  get isConnected(): boolean {
    return !this.dead && (this.cm.state === CM_STATE_CONNECTED || this.cm.state === CM_STATE_CONNECTED_READ_ONLY);
  }

  /** When the member last sent the console anything (a reply, a watch event, a ping's answer); 0 before. */
  get lastAnswerAt(): number {
    return this.lastAnswer;
  }

  get negotiatedTimeoutMs(): number {
    return this.cm.sessionTimeout;
  }

  sessionIdHex(): string | null {
    const id = this.client.getSessionId();
    if (!id || id.length !== 8) return null;
    const value = id.readBigInt64BE(0);
    return value === 0n ? null : formatSessionId(value);
  }

  /**
   * Gives up this session for a new one, read-only, on `member` (a member that lost quorum
   * serves only sessions it opens itself): the next connection asks for a new session.
   */
  openReadOnlySession(member: string | null, reason: string): void {
    this.wire.askForNewSession();
    if (member) this.wire.preferMember(member);
    if (this.cm.socket) this.dropSocket(reason);
  }

  /** Moves to `member` (from a read-only member to one serving with quorum again): a new session there. */
  moveTo(member: string, reason: string): void {
    this.wire.askForNewSession();
    if (this.wire.preferMember(member)) this.dropSocket(reason);
  }

  /** Drops the TCP connection; the library reconnects to the next member with the same session. */
  dropSocket(reason: string): void {
    this.emit('contained', { what: `dropping connection: ${reason}` });
    try {
      this.cm.socket?.destroy();
    } catch (error) {
      this.emit('contained', { what: 'socket destroy threw', error });
    }
  }

  /** Closes the session (best effort) and stops every timer. */
  close(): void {
    this.markDead();
    try {
      this.client.close();
    } catch (error) {
      this.emit('contained', { what: 'close threw', error });
    }
  }

  private markDead(): void {
    this.dead = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  private instrument(): void {
    const cm = this.cm;
    const onSocketData = cm.onSocketData.bind(cm);
    cm.onSocketData = (buffer: Buffer) => {
      this.lastProgressAt = Date.now();
      // Only an established session's traffic confirms it (the handshake's answer is the 'connected' event).
      if (this.isConnected) this.lastAnswer = this.lastProgressAt;
      try {
        onSocketData(buffer);
      } catch (error) {
        // A malformed or unexpected frame must not kill the process: reconnect instead.
        this.emit('contained', { what: 'socket data handler threw', error });
        this.dropSocket('unreadable reply');
      }
    };
    const onSocketConnected = cm.onSocketConnected.bind(cm);
    cm.onSocketConnected = () => {
      this.lastProgressAt = Date.now();
      onSocketConnected();
    };
    const findNextServer = cm.findNextServer.bind(cm);
    cm.findNextServer = (callback) => {
      findNextServer((server) => {
        this.currentServer = server;
        this.lastProgressAt = Date.now();
        callback(server);
      });
    };
  }

  private checkLiveness(): void {
    if (this.dead) return;
    const now = Date.now();
    const silentFor = now - this.lastProgressAt;
    if (this.isConnected) {
      const readTimeout = Math.floor((this.cm.sessionTimeout * 2) / 3);
      if (silentFor > readTimeout) {
        this.dropSocket(`no answer from ${this.member ?? 'member'} for ${(silentFor / 1000).toFixed(1)} s`);
        this.lastProgressAt = now;
      }
      return;
    }
    if (this.cm.state === CM_STATE_CONNECTING && this.cm.socket && silentFor > Math.max(this.wire.handshakeTimeoutMs, 1000)) {
      this.dropSocket(`handshake with ${this.member ?? 'member'} unanswered for ${(silentFor / 1000).toFixed(1)} s`);
      this.lastProgressAt = now;
      return;
    }
    // Only a session that existed can be lost; before the first connect we keep trying.
    if (this.everConnected && this.disconnectedSince !== null && now - this.disconnectedSince > this.cm.sessionTimeout) {
      const seconds = ((now - this.disconnectedSince) / 1000).toFixed(1);
      this.markDead();
      this.emit('expired', { note: `disconnected for ${seconds} s, longer than the session timeout: session presumed expired` });
    }
  }

  /** Asks whoAmI and emits what it said; a member before 3.7 answers UNIMPLEMENTED. */
  private askWhoAmI(): void {
    try {
      whoAmI(this.cm, this.wire, (error, identities) => {
        if (this.dead) return;
        if (identities) return this.emit('identity', { ok: true, identities });
        const code = (error as { getCode?: () => number } | null)?.getCode?.();
        if (code === -4 || code === -112) return; // the connection or session went away: the next connect asks again
        const reason =
          code === -6 ? 'this ZooKeeper does not answer whoAmI (it needs 3.7 or later)' : `whoAmI failed: ${String((error as Error)?.message ?? error)}`;
        this.emit('identity', { ok: false, reason });
      });
    } catch (error) {
      this.emit('contained', { what: 'whoAmI threw', error });
    }
  }

  private onState(name: string): void {
    if (this.dead) return;
    switch (name) {
      case 'SYNC_CONNECTED':
      case 'CONNECTED_READ_ONLY': {
        this.everConnected = true;
        this.disconnectedSince = null;
        this.lastProgressAt = Date.now();
        // The handshake's answer is the first confirmation: judged from here, not from 0.
        this.lastAnswer = this.lastProgressAt;
        this.emit('connected', {
          sessionId: this.sessionIdHex() ?? '0x0',
          member: this.member,
          timeoutMs: this.cm.sessionTimeout,
          readOnly: name === 'CONNECTED_READ_ONLY',
        });
        this.askWhoAmI();
        return;
      }
      case 'DISCONNECTED':
        this.disconnectedSince ??= Date.now();
        this.emit('disconnected', { note: `lost connection to ${this.member ?? 'member'}` });
        return;
      case 'EXPIRED':
        this.markDead();
        this.emit('expired', { note: 'the ensemble expired the session' });
        return;
      case 'AUTH_FAILED':
        this.markDead();
        this.emit('authFailed', { note: this.refusal ?? 'the ensemble refused the credentials' });
        return;
      default:
        return;
    }
  }
}

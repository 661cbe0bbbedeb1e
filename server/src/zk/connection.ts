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
 * After 'expired', 'lost' or 'authFailed' the handle is dead: the gateway replaces it.
 */
import { EventEmitter } from 'node:events';
import zookeeper from 'node-zookeeper-client';
import { formatSessionId } from '@keeper/shared';
import './nzcPatches.js';

export interface ConnectionOptions {
  connectionString: string;
  sessionTimeoutMs: number;
  auth?: { scheme: 'digest'; credential: string }[];
  /** How often the watchdog looks at the socket; small in tests. */
  watchdogIntervalMs?: number;
}

export interface ConnectionEvents {
  connected: [info: { sessionId: string; member: string | null; timeoutMs: number; readOnly: boolean }];
  disconnected: [info: { note: string }];
  /** The session is gone: expired by the ensemble, or disconnected past its timeout. */
  expired: [info: { note: string }];
  authFailed: [info: { note: string }];
  /** Something the library did that we contained; for logs. */
  contained: [info: { what: string; error?: unknown }];
}

interface ServerAddress {
  host: string;
  port: number;
}

/** The parts of node-zookeeper-client's ConnectionManager that we instrument. */
interface ConnectionManagerInternals {
  socket?: { destroy(): void } | null;
  sessionTimeout: number;
  connectTimeout: number;
  state: number;
  onSocketData: (buffer: Buffer) => void;
  onSocketConnected: () => void;
  findNextServer: (callback: (server: ServerAddress) => void) => void;
}

const CM_STATE_CONNECTING = 1; // ConnectionManager.STATES.CONNECTING
const CM_STATE_CONNECTED = 2;
const CM_STATE_CONNECTED_READ_ONLY = 3;

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

  constructor(private readonly options: ConnectionOptions) {
    super();
    // retries: 0 — the library would re-send non-idempotent creates on CONNECTION_LOSS.
    this.client = zookeeper.createClient(options.connectionString, {
      sessionTimeout: options.sessionTimeoutMs,
      spinDelay: 1000,
      retries: 0,
    });
    this.cm = (this.client as unknown as { connectionManager: ConnectionManagerInternals }).connectionManager;
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
    if (this.cm.state === CM_STATE_CONNECTING && this.cm.socket && silentFor > Math.max(this.cm.connectTimeout, 1000)) {
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
        this.emit('authFailed', { note: 'the ensemble refused the credentials' });
        return;
      default:
        return;
    }
  }
}

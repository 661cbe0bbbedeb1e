/**
 * What Keeper adds to node-zookeeper-client's connection, in one place: the library keeps its
 * request queue, watches, pings and replies; this owns each new connection until the session is
 * usable, and reads the frames the library cannot.
 *
 *  - The socket: TLS (tlsMaterial.ts) or plain TCP. A TLS socket is handed to the library only
 *    once its handshake is done (`secureConnect`), with the member's certificate checked.
 *  - The connect request, written here with `canBeReadOnly` (the library has no read-only flag),
 *    and the connect response read here first: its read-only flag turns the library's CONNECTED
 *    into CONNECTED_READ_ONLY. A session begun on a read-only member is not offered to a
 *    read-write one (its id is unknown to the quorum): as the Java client does, Keeper asks for a
 *    new session until it has seen a read-write member.
 *  - SASL (op code 102): when configured, the connect response is held back from the library
 *    until the exchange succeeded, so the library sends nothing (no queued call, no SetWatches,
 *    no ping) before the session is authenticated: on every connection, after every reconnect
 *    and for every new session. A refusal ends the handle as AUTH_FAILED, with the reason.
 *  - Frames: the byte stream is split into whole frames here, so the library gets one frame at
 *    a time and a reply it cannot parse (whoAmI's) can be read by xid first.
 */
import { createRequire } from 'node:module';
import { backoffDelay, type Backoff } from '@keeper/shared';
import net from 'node:net';
import tls from 'node:tls';
import { decodeConnectResponse, decodeReplyHeader, decodeSaslToken, encodeConnectRequest, encodeSaslRequest, FrameSplitter } from './protocol.js';
import { saslRefusal, type SaslFactory, type SaslMechanism, type SaslSettings } from './sasl.js';
import { speaksTls, tlsFailureSentence, type TlsMaterial } from './tlsMaterial.js';

const require = createRequire(import.meta.url);

const TLS_HANDSHAKE_MIN_MS = 4_000;
const TROUBLE_BACKOFF: Backoff = { baseMs: 500, capMs: 30_000, jitter: [0.5, 1] };

export interface ServerAddress {
  host: string;
  port: number;
}

/** ConnectionManager.STATES */
export const CM_STATES = {
  DISCONNECTED: 0,
  CONNECTING: 1,
  CONNECTED: 2,
  CONNECTED_READ_ONLY: 3,
  AUTHENTICATION_FAILED: -4,
} as const;

/** The parts of node-zookeeper-client's ConnectionManager this module drives. */
export interface ConnectionManagerInternals {
  socket?: net.Socket | null;
  state: number;
  servers: ServerAddress[];
  serverAttempts: number;
  nextServerIndex: number;
  sessionTimeout: number;
  connectTimeout: number;
  connectTimeoutHandler: NodeJS.Timeout | null;
  sessionId: Buffer;
  sessionPassword: Buffer;
  zxid: Buffer;
  xid: number;
  chrootPath?: string;
  credentials: { scheme: string; auth: Buffer }[];
  watcherManager: {
    isEmpty(): boolean;
    getDataWatcherPaths(): string[];
    getExistenceWatcherPaths(): string[];
    getChildWatcherPaths(): string[];
  };
  setState(state: number): void;
  connect(): void;
  findNextServer(callback: (server: ServerAddress) => void): void;
  queue(request: unknown, callback?: (error: unknown) => void): void;
  onSocketConnectTimeout(): void;
  onSocketConnected(): void;
  onSocketData(buffer: Buffer): void;
  onSocketDrain(): void;
  onSocketClosed(hadError: boolean): void;
  onSocketError(error: Error): void;
}

interface JuteRecord {
  setChrootPath?(path: string | undefined): void;
}

interface LibraryJute {
  XID_AUTHENTICATION: number;
  XID_SET_WATCHES: number;
  OP_CODES: { AUTH: number; SET_WATCHES: number };
  Request: new (header: unknown, payload: unknown) => unknown;
  protocol: {
    RequestHeader: new () => { xid: number; type: number };
    AuthPacket: new () => { type: number; scheme: string; auth: Buffer };
    SetWatches: new () => JuteRecord & {
      relativeZxid: Buffer;
      dataWatches: string[];
      existWatches: string[];
      childWatches: string[];
    };
  };
}

const jute = require('node-zookeeper-client/lib/jute/index.js') as LibraryJute;

export type TroubleKind = 'tls' | 'sasl' | 'handshake';

export interface Trouble {
  kind: TroubleKind;
  /** In the operator's words: who, what, what to change. */
  note: string;
  /** The member the connection was to. */
  member: string;
  /** A SASL refusal ends the handle (AUTH_FAILED); other troubles only this connection. */
  fatal: boolean;
  /** A configuration problem that retrying soon will not fix: back off. */
  persistent: boolean;
}

export interface WireExtensionOptions {
  tls: TlsMaterial | null;
  sasl: { settings: SaslSettings; factory: SaslFactory } | null;
  canBeReadOnly: boolean;
  onTrouble(trouble: Trouble): void;
  /** Something happened on the connection that the data handler does not see (a TLS socket's TCP connect). */
  onProgress?(): void;
  /** Whether the member says it is read-only, before the library hears of the session. */
  onSessionOpened?(info: { readOnly: boolean; member: string; sasl: boolean }): void;
}

type Phase = 'connecting' | 'sasl' | 'open';

interface Attempt {
  socket: net.Socket;
  server: ServerAddress;
  member: string;
  secure: boolean;
  handshakeDone: boolean;
  phase: Phase;
  frames: FrameSplitter;
  bytes: number;
  /** The member closed its side (FIN), as opposed to Keeper dropping a connection that went unanswered. */
  remoteEnded: boolean;
  troubleReported: boolean;
  persistentTrouble: boolean;
  connectResponse: Buffer | null;
  readOnly: boolean;
  mechanism: SaslMechanism | null;
  saslXid: number | null;
  saslPackets: number;
  closed: boolean;
}

function addressOf(server: ServerAddress): string {
  return `${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}`;
}

export class WireExtension {
  private attempt: Attempt | null = null;
  /** Java's seenRwServerBefore: until then a reconnect asks for a new session (see the header). */
  private seenReadWrite = false;
  /** Set while the library reads a read-only member's connect response. */
  private openingReadOnly = false;
  private readonly frameWaiters = new Map<number, (frame: Buffer) => void>();
  private readonly deliver: (frame: Buffer) => void;
  private readonly sniffedAt = new Map<string, number>();
  /** Attempts in a row that met a TLS or SASL configuration problem (reset when a session opens). */
  private persistentFailures = 0;

  constructor(
    private readonly cm: ConnectionManagerInternals,
    private readonly options: WireExtensionOptions,
  ) {
    this.deliver = cm.onSocketData.bind(cm);
    // A handle made to resume a known session (tests' forced expiry) offers it from the start.
    this.seenReadWrite = cm.sessionId.some((byte) => byte !== 0);
    const setState = cm.setState.bind(cm);
    cm.setState = (state: number) => setState(state === CM_STATES.CONNECTED && this.openingReadOnly ? CM_STATES.CONNECTED_READ_ONLY : state);
    cm.connect = () => {
      cm.setState(CM_STATES.CONNECTING);
      // After a TLS or SASL configuration problem, each further attempt waits longer (0.5 s
      // doubling to 30 s, jittered): a wrong CA does not get better by asking 3 times a second.
      const delay = this.persistentFailures > 0 ? backoffDelay(this.persistentFailures - 1, TROUBLE_BACKOFF) : 0;
      const next = () => cm.findNextServer((server) => this.open(server));
      if (delay === 0) next();
      else setTimeout(() => (cm.state === CM_STATES.CONNECTING ? next() : undefined), delay).unref();
    };
    cm.onSocketConnected = () => this.onConnected();
    cm.onSocketData = (chunk: Buffer) => this.onData(chunk);
  }

  /**
   * How long a connection may take before the session handshake starts. A TLS handshake is the
   * member's costliest work (a JVM just started does it slowly): at least 4 s, where the library
   * gives a TCP connect its share of the session timeout (a third of it for three members).
   */
  get handshakeTimeoutMs(): number {
    return this.options.tls ? Math.max(this.cm.connectTimeout, TLS_HANDSHAKE_MIN_MS) : this.cm.connectTimeout;
  }

  /** Whether the member the session is on serves it read-only. */
  get readOnly(): boolean {
    return this.cm.state === CM_STATES.CONNECTED_READ_ONLY;
  }

  /**
   * From the next connection on, ask for a new session instead of resuming this one. A member
   * that lost quorum (ZooKeeper 3.7+) refuses to resume a session made with quorum and serves
   * only sessions it opens itself: this is how Keeper gets one during an outage.
   */
  askForNewSession(): void {
    this.seenReadWrite = false;
  }

  /** The next connection attempt goes to this member (host:port as in the connection string), if it is one. */
  preferMember(member: string): boolean {
    let index = this.cm.servers.findIndex((s) => addressOf(s) === member);
    if (index < 0) {
      // The poller may name the member differently ("localhost" for "127.0.0.1"): a unique port decides.
      const port = Number(member.slice(member.lastIndexOf(':') + 1));
      const onPort = this.cm.servers.flatMap((s, i) => (s.port === port ? [i] : []));
      if (onPort.length !== 1) return false;
      index = onPort[0] as number;
    }
    this.cm.nextServerIndex = index;
    this.cm.serverAttempts = 0;
    return true;
  }

  /** Calls `onFrame` with the next reply frame with this xid (before the library reads it); for whoAmI. */
  expectFrame(xid: number, onFrame: (frame: Buffer) => void): void {
    this.frameWaiters.set(xid, onFrame);
  }

  forgetFrame(xid: number): void {
    this.frameWaiters.delete(xid);
  }

  private open(server: ServerAddress): void {
    const cm = this.cm;
    // The handle was closed while the library waited before this attempt.
    if (cm.state !== CM_STATES.CONNECTING) return;
    const member = addressOf(server);
    const secure = this.options.tls !== null;
    let socket: net.Socket;
    let failure: Error | null = null;
    if (this.options.tls) {
      try {
        socket = tls.connect(this.options.tls.connectOptions(server.host, server.port));
      } catch (error) {
        failure = error as Error;
        socket = new net.Socket();
      }
    } else {
      socket = net.connect(server);
    }
    const attempt: Attempt = {
      socket,
      server,
      member,
      secure,
      handshakeDone: false,
      phase: 'connecting',
      frames: new FrameSplitter(),
      bytes: 0,
      remoteEnded: false,
      troubleReported: false,
      persistentTrouble: false,
      connectResponse: null,
      readOnly: false,
      mechanism: null,
      saslXid: null,
      saslPackets: 0,
      closed: false,
    };
    this.attempt = attempt;
    this.frameWaiters.clear();
    cm.socket = socket;
    cm.connectTimeoutHandler = setTimeout(() => cm.onSocketConnectTimeout(), this.handshakeTimeoutMs);
    socket.setNoDelay(true);
    // TCP is up: progress (connection.ts watches for a handshake that goes unanswered).
    if (secure) socket.on('connect', () => this.options.onProgress?.());
    socket.on(secure ? 'secureConnect' : 'connect', () => {
      attempt.handshakeDone = true;
      if (this.attempt === attempt) cm.onSocketConnected();
    });
    socket.on('data', (chunk: Buffer) => {
      attempt.bytes += chunk.length;
      if (this.attempt === attempt) cm.onSocketData(chunk);
    });
    socket.on('drain', () => cm.onSocketDrain());
    socket.on('end', () => {
      attempt.remoteEnded = true;
    });
    socket.on('error', (error: Error) => {
      this.noteSocketError(attempt, error);
      cm.onSocketError(error);
    });
    socket.on('close', (hadError: boolean) => {
      attempt.closed = true;
      if (this.attempt !== attempt) return;
      this.noteClose(attempt);
      cm.onSocketClosed(hadError);
    });
    if (failure) {
      const error = failure;
      process.nextTick(() => socket.destroy(error));
    }
  }

  private onConnected(): void {
    const cm = this.cm;
    const attempt = this.attempt;
    if (!attempt || !cm.socket) return;
    if (cm.connectTimeoutHandler) clearTimeout(cm.connectTimeoutHandler);
    cm.connectTimeoutHandler = null;
    const resume = this.seenReadWrite;
    cm.socket.write(
      encodeConnectRequest({
        lastZxidSeen: cm.zxid,
        timeOutMs: cm.sessionTimeout,
        sessionId: resume ? cm.sessionId : Buffer.alloc(8),
        password: resume ? cm.sessionPassword : Buffer.alloc(16),
        readOnly: this.options.canBeReadOnly,
      }),
    );
    // What the library's onSocketConnected queues after its connect request: the digest
    // credentials, then the watches to re-arm. They wait in its queue until the session is open.
    for (const credential of cm.credentials) {
      const header = new jute.protocol.RequestHeader();
      const payload = new jute.protocol.AuthPacket();
      header.xid = jute.XID_AUTHENTICATION;
      header.type = jute.OP_CODES.AUTH;
      payload.type = 0;
      payload.scheme = credential.scheme;
      payload.auth = credential.auth;
      cm.queue(new jute.Request(header, payload));
    }
    if (!cm.watcherManager.isEmpty()) {
      const header = new jute.protocol.RequestHeader();
      const payload = new jute.protocol.SetWatches();
      header.type = jute.OP_CODES.SET_WATCHES;
      header.xid = jute.XID_SET_WATCHES;
      payload.setChrootPath?.(cm.chrootPath);
      payload.relativeZxid = cm.zxid;
      payload.dataWatches = cm.watcherManager.getDataWatcherPaths();
      payload.existWatches = cm.watcherManager.getExistenceWatcherPaths();
      payload.childWatches = cm.watcherManager.getChildWatcherPaths();
      cm.queue(new jute.Request(header, payload));
    }
  }

  private onData(chunk: Buffer): void {
    const attempt = this.attempt;
    if (!attempt) return;
    // A malformed length throws to the caller (connection.ts), which drops the connection.
    for (const frame of attempt.frames.push(chunk)) {
      if (this.attempt !== attempt || attempt.closed) return;
      this.onFrame(attempt, frame);
    }
  }

  private onFrame(attempt: Attempt, frame: Buffer): void {
    switch (attempt.phase) {
      case 'connecting': {
        if (frame.length === 4 + 16) {
          // Not a connect response but a bare reply header: a read-only member refusing to create
          // the session (ZooKeeper 3.7+ opens sessions there only with localSessionsEnabled).
          const { header } = decodeReplyHeader(frame.subarray(4));
          this.report(attempt, {
            kind: 'handshake',
            note: `${attempt.member} refused to open a session (${header.err === -119 ? 'NOT_READ_ONLY: it has lost quorum, and ZooKeeper 3.7+ opens a session on a read-only member only with localSessionsEnabled=true' : `error ${header.err}`})`,
            member: attempt.member,
            fatal: false,
            persistent: false,
          });
          attempt.socket.destroy();
          return;
        }
        const response = decodeConnectResponse(frame.subarray(4));
        attempt.readOnly = response.readOnly;
        if (response.timeOutMs > 0 && this.options.sasl) {
          attempt.connectResponse = frame;
          attempt.phase = 'sasl';
          void this.startSasl(attempt);
          return;
        }
        this.openSession(attempt, frame, response.timeOutMs > 0);
        return;
      }
      case 'sasl':
        void this.onSaslReply(attempt, frame);
        return;
      case 'open': {
        if (frame.length >= 8) {
          const xid = frame.readInt32BE(4);
          const waiter = this.frameWaiters.get(xid);
          if (waiter) {
            this.frameWaiters.delete(xid);
            waiter(frame);
          }
        }
        this.deliver(frame);
        return;
      }
      default: {
        const never: never = attempt.phase;
        throw new Error(`unknown phase ${String(never)}`);
      }
    }
  }

  /** Lets the library read the connect response: it opens the session and flushes its queue. */
  private openSession(attempt: Attempt, frame: Buffer, valid: boolean): void {
    attempt.phase = 'open';
    if (valid) {
      this.persistentFailures = 0;
      if (!attempt.readOnly) this.seenReadWrite = true;
      this.options.onSessionOpened?.({ readOnly: attempt.readOnly, member: attempt.member, sasl: this.options.sasl !== null });
    }
    this.openingReadOnly = valid && attempt.readOnly;
    try {
      this.deliver(frame);
    } finally {
      this.openingReadOnly = false;
    }
  }

  private async startSasl(attempt: Attempt): Promise<void> {
    const sasl = this.options.sasl;
    if (!sasl) return;
    try {
      const mechanism = await sasl.factory(attempt.server.host);
      attempt.mechanism = mechanism;
      this.sendSasl(attempt, await mechanism.start());
    } catch (error) {
      this.failSasl(attempt, saslMessage(sasl.settings, error, attempt.member));
    }
  }

  private sendSasl(attempt: Attempt, token: Buffer): void {
    if (this.attempt !== attempt || attempt.closed) return;
    const xid = this.cm.xid++;
    attempt.saslXid = xid;
    attempt.saslPackets++;
    attempt.socket.write(encodeSaslRequest(xid, token));
  }

  private async onSaslReply(attempt: Attempt, frame: Buffer): Promise<void> {
    const sasl = this.options.sasl;
    const mechanism = attempt.mechanism;
    if (!sasl || !mechanism) return this.failSasl(attempt, `SASL: ${attempt.member} answered before Keeper sent its first SASL packet`, false);
    const { header, rest } = decodeReplyHeader(frame.subarray(4));
    if (header.xid !== attempt.saslXid) {
      return this.failSasl(
        attempt,
        `SASL ${sasl.settings.mechanism}: ${attempt.member} answered xid ${header.xid}, not the SASL packet's ${attempt.saslXid}`,
        false,
      );
    }
    if (header.err !== 0) return this.failSasl(attempt, saslRefusal(sasl.settings, header.err, attempt.saslPackets === 1, attempt.member));
    if (mechanism.complete) return this.finishSasl(attempt);
    let next: Buffer | null;
    try {
      next = await mechanism.step(decodeSaslToken(rest));
    } catch (error) {
      return this.failSasl(attempt, saslMessage(sasl.settings, error, attempt.member));
    }
    if (next !== null) {
      // GSSAPI's last token is answered once more (an empty reply) before the member counts it done.
      this.sendSasl(attempt, next);
      return;
    }
    if (mechanism.complete) return this.finishSasl(attempt);
    return this.failSasl(attempt, `SASL ${sasl.settings.mechanism}: the exchange with ${attempt.member} stopped before it completed`);
  }

  private finishSasl(attempt: Attempt): void {
    if (this.attempt !== attempt || attempt.closed || !attempt.connectResponse) return;
    this.openSession(attempt, attempt.connectResponse, true);
  }

  /**
   * A SASL failure. A refusal ends the handle (the credentials will not get better by trying the
   * next member at once: the gateway backs off); a protocol slip only drops this connection.
   */
  private failSasl(attempt: Attempt, note: string, fatal = true): void {
    if (this.attempt !== attempt || attempt.closed) return;
    this.report(attempt, { kind: 'sasl', note, member: attempt.member, fatal, persistent: fatal });
    if (fatal) this.cm.setState(CM_STATES.AUTHENTICATION_FAILED);
    attempt.socket.destroy();
  }

  private report(attempt: Attempt, trouble: Trouble): void {
    if (trouble.persistent && !attempt.persistentTrouble) this.persistentFailures++;
    attempt.persistentTrouble ||= trouble.persistent;
    attempt.troubleReported = true;
    this.options.onTrouble(trouble);
  }

  private noteSocketError(attempt: Attempt, error: Error): void {
    if (attempt.troubleReported) return;
    const sentence = attempt.secure ? tlsFailureSentence(error, attempt.member, attempt.handshakeDone, this.options.tls?.settings ?? null) : null;
    if (sentence) this.report(attempt, { kind: 'tls', note: sentence, member: attempt.member, fatal: false, persistent: true });
  }

  /** A connection closed before the session opened, with nothing said: why, as far as can be told. */
  private noteClose(attempt: Attempt): void {
    // Only what the member did says something; a connection Keeper dropped (no answer in time) is said elsewhere.
    if (attempt.troubleReported || attempt.phase === 'open' || !attempt.remoteEnded) return;
    if (attempt.phase === 'sasl') {
      this.report(attempt, {
        kind: 'sasl',
        note: `SASL: ${attempt.member} closed the connection during the SASL exchange`,
        member: attempt.member,
        fatal: false,
        persistent: false,
      });
      return;
    }
    if (attempt.secure && !attempt.handshakeDone && attempt.bytes === 0) {
      this.report(attempt, {
        kind: 'tls',
        note: `TLS: ${attempt.member} closed the connection during the TLS handshake: it may not speak TLS on this port, or it refused Keeper’s certificate`,
        member: attempt.member,
        fatal: false,
        persistent: true,
      });
      return;
    }
    if (!attempt.secure && attempt.handshakeDone && attempt.bytes === 0) void this.sniffTls(attempt);
  }

  /**
   * A plain connection closed at once, unanswered: a member without quorum and one at
   * maxClientCnxns do that, and so does a TLS-only port. Which one is asked of the port itself
   * (a TLS hello), at most once a minute per member.
   */
  private async sniffTls(attempt: Attempt): Promise<void> {
    const now = Date.now();
    if ((this.sniffedAt.get(attempt.member) ?? 0) > now - 60_000) return;
    this.sniffedAt.set(attempt.member, now);
    const tls = await speaksTls(attempt.server.host, attempt.server.port);
    // No verdict in time: asked again at the next such close, not a minute later.
    if (tls === null) this.sniffedAt.delete(attempt.member);
    if (tls !== true) return;
    this.report(attempt, {
      kind: 'tls',
      note: `${attempt.member} speaks only TLS on this port: Keeper connected with plain TCP and the member closed the connection unanswered; add "tls" (with the members' CA) to the ensemble's config`,
      member: attempt.member,
      fatal: false,
      persistent: true,
    });
  }
}

function saslMessage(settings: SaslSettings, error: unknown, member: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith('SASL') ? message : `SASL ${settings.mechanism} with ${member}: ${message}`;
}

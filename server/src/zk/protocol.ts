/**
 * The few ZooKeeper wire records Keeper writes and reads itself, beside node-zookeeper-client
 * (which knows none of them): the connect request and response with the read-only flag, the SASL
 * packet (op code 102) and whoAmI (op code 107, ZooKeeper 3.7+). Jute encoding: big-endian ints
 * and longs, a buffer or string as a 4-byte length (-1 for null) then its bytes, a boolean as one
 * byte. Every frame on the client port is a 4-byte length then the record(s).
 */

export const OP_SASL = 102;
export const OP_WHO_AM_I = 107;

/** ConnectRequest {protocolVersion, lastZxidSeen, timeOut, sessionId, passwd} + readOnly (ClientCnxn.primeConnection). */
export interface ConnectRequest {
  lastZxidSeen: Buffer;
  timeOutMs: number;
  sessionId: Buffer;
  password: Buffer;
  /** canBeReadOnly: a member that lost quorum but runs with readonlymode.enabled may serve this session. */
  readOnly: boolean;
}

export interface ConnectResponse {
  protocolVersion: number;
  /** The granted session timeout; 0 or less means the session is expired. */
  timeOutMs: number;
  sessionId: Buffer;
  password: Buffer;
  /** The member serves this session read-only (it has no quorum). Absent before 3.4: false. */
  readOnly: boolean;
}

export interface ReplyHeader {
  xid: number;
  zxid: bigint;
  err: number;
}

function long8(value: Buffer): Buffer {
  const out = Buffer.alloc(8);
  value.copy(out, 0, 0, Math.min(8, value.length));
  return out;
}

function framed(body: Buffer): Buffer {
  const out = Buffer.alloc(4 + body.length);
  out.writeInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

export function encodeConnectRequest(request: ConnectRequest): Buffer {
  const password = request.password;
  const body = Buffer.alloc(4 + 8 + 4 + 8 + 4 + password.length + 1);
  let at = 0;
  at = body.writeInt32BE(0, at); // protocol version
  long8(request.lastZxidSeen).copy(body, at);
  at += 8;
  at = body.writeInt32BE(request.timeOutMs, at);
  long8(request.sessionId).copy(body, at);
  at += 8;
  at = body.writeInt32BE(password.length, at);
  password.copy(body, at);
  at += password.length;
  body.writeUInt8(request.readOnly ? 1 : 0, at);
  return framed(body);
}

/** Reads the body of a connect response frame (without its length prefix). Throws on a short frame. */
export function decodeConnectResponse(body: Buffer): ConnectResponse {
  const reader = new Reader(body);
  const protocolVersion = reader.int();
  const timeOutMs = reader.int();
  const sessionId = reader.bytes(8);
  const password = reader.buffer() ?? Buffer.alloc(0);
  const readOnly = reader.remaining > 0 ? reader.byte() !== 0 : false;
  return { protocolVersion, timeOutMs, sessionId, password, readOnly };
}

/** A request of header and one optional buffer field: the SASL packet is `{xid, 102}` + `{token}`. */
export function encodeSaslRequest(xid: number, token: Buffer): Buffer {
  const body = Buffer.alloc(8 + 4 + token.length);
  body.writeInt32BE(xid, 0);
  body.writeInt32BE(OP_SASL, 4);
  body.writeInt32BE(token.length, 8);
  token.copy(body, 12);
  return framed(body);
}

export function decodeReplyHeader(body: Buffer): { header: ReplyHeader; rest: Buffer } {
  const reader = new Reader(body);
  const header = { xid: reader.int(), zxid: reader.long(), err: reader.int() };
  return { header, rest: body.subarray(reader.offset) };
}

/** The SASL reply's token (SetSASLResponse {buffer token}); null when the member sent none. */
export function decodeSaslToken(rest: Buffer): Buffer | null {
  if (rest.length === 0) return null;
  return new Reader(rest).buffer();
}

export interface ClientInfo {
  scheme: string;
  id: string;
}

/** WhoAmIResponse {vector<ClientInfo {ustring authScheme; ustring user}> clientInfo}. */
export function decodeWhoAmI(rest: Buffer): ClientInfo[] {
  const reader = new Reader(rest);
  const count = reader.int();
  if (count < 0) return [];
  if (count > 1_000) throw new Error(`whoAmI answered ${count} identities`);
  const out: ClientInfo[] = [];
  for (let i = 0; i < count; i++) out.push({ scheme: reader.string() ?? '', id: reader.string() ?? '' });
  return out;
}

class Reader {
  offset = 0;
  constructor(private readonly data: Buffer) {}
  get remaining(): number {
    return this.data.length - this.offset;
  }
  private need(n: number): void {
    if (n < 0 || this.offset + n > this.data.length) throw new Error(`short ZooKeeper record: needed ${n} bytes at ${this.offset} of ${this.data.length}`);
  }
  int(): number {
    this.need(4);
    const v = this.data.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  long(): bigint {
    this.need(8);
    const v = this.data.readBigInt64BE(this.offset);
    this.offset += 8;
    return v;
  }
  byte(): number {
    this.need(1);
    return this.data.readUInt8(this.offset++);
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = Buffer.from(this.data.subarray(this.offset, this.offset + n));
    this.offset += n;
    return v;
  }
  buffer(): Buffer | null {
    const length = this.int();
    return length < 0 ? null : this.bytes(length);
  }
  string(): string | null {
    return this.buffer()?.toString('utf8') ?? null;
  }
}

/** The largest frame a member sends (jute.maxbuffer is about 1 MiB; a 100k-children list stays below 16 MiB). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Splits the byte stream of one connection into whole frames (each with its 4-byte length
 * prefix, which node-zookeeper-client expects). A length below 0 or above MAX_FRAME_BYTES is not a
 * ZooKeeper frame: `push` throws, and the caller drops the connection.
 */
export class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    while (this.pending.length >= 4) {
      const size = this.pending.readInt32BE(0);
      if (size < 0 || size > MAX_FRAME_BYTES) throw new Error(`not a ZooKeeper frame (length ${size})`);
      if (this.pending.length < 4 + size) break;
      frames.push(this.pending.subarray(0, 4 + size));
      this.pending = this.pending.subarray(4 + size);
    }
    return frames;
  }

  /** Bytes received that do not yet make a frame. */
  get buffered(): number {
    return this.pending.length;
  }
}

/**
 * ZooKeeper's reconfig (op code 16, 3.5+), which node-zookeeper-client 1.1.3 does not have.
 * Checked against the Java client (ZooKeeperAdmin.reconfigure) and zookeeper.jute:
 *
 *   RequestHeader   { int xid; int type = 16 }
 *   ReconfigRequest { ustring joiningServers; ustring leavingServers; ustring newMembers; long curConfigId }
 *   reply           ReplyHeader, then GetDataResponse { buffer data; Stat stat }
 *
 * A null ustring is written as length -1; curConfigId -1 means "whatever the version" (Keeper
 * always sends the version it read: docs/reconfig.md). As removeWatches and whoAmI do, the request
 * goes through the library's own queue (an xid, the session's order, the reply matched through its
 * pending queue). The library reads a reply by the request's type, so the header says GET_DATA to
 * it, whose reply is the same GetDataResponse: the callback gets the new configuration and its
 * stat. Only the bytes on the wire say 16.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const OP_RECONFIG = 16;
/** Where the request type sits in a serialized request: after the 4-byte length and the 4-byte xid. */
const TYPE_OFFSET = 8;

interface JuteModule {
  OP_CODES: { GET_DATA: number };
  Request: new (header: unknown, payload: unknown) => { toBuffer(): Buffer };
  protocol: { RequestHeader: new () => { xid: number; type: number } };
}

interface ClientInternals {
  connectionManager: {
    queue(request: unknown, callback: (error: unknown, response?: { payload?: { data?: Buffer; stat?: unknown } }) => void): void;
  };
}

const jute = require('node-zookeeper-client/lib/jute/index.js') as JuteModule;

export interface ReconfigArguments {
  /** Comma-separated `server.N=…` lines (incremental), or null. */
  joining: string | null;
  /** Comma-separated ids (incremental), or null. */
  leaving: string | null;
  /** A whole new membership (non-incremental), or null. Keeper does not use it. */
  newMembers: string | null;
  /** The configuration version the change is conditioned on (fromConfig); -1n for none. */
  fromConfig: bigint;
}

/** The ReconfigRequest record (after the header): three ustrings and a long. */
export function encodeReconfigRequest(args: ReconfigArguments): Buffer {
  const strings = [args.joining, args.leaving, args.newMembers].map((s) => (s === null ? null : Buffer.from(s, 'utf8')));
  const size = strings.reduce((n, b) => n + 4 + (b?.length ?? 0), 0) + 8;
  const out = Buffer.alloc(size);
  let at = 0;
  for (const b of strings) {
    at = out.writeInt32BE(b === null ? -1 : b.length, at);
    if (b) at += b.copy(out, at);
  }
  out.writeBigInt64BE(BigInt.asIntN(64, args.fromConfig), at);
  return out;
}

/** The payload object the library's Request serializes (it asks its length, then writes it). */
class RawRecord {
  constructor(private readonly bytes: Buffer) {}
  byteLength(): number {
    return this.bytes.length;
  }
  serialize(buffer: Buffer, offset: number): number {
    return this.bytes.copy(buffer, offset);
  }
  /** /zookeeper/config is never under a chroot: nothing to rewrite. */
  setChrootPath(): void {}
}

export interface ReconfigReply {
  /** The new configuration's text (as /zookeeper/config holds it). */
  data: Buffer;
}

/** Sends one reconfig through `client`'s queue; the callback gets the library's exception (by code) or the new configuration. */
export function reconfig(client: unknown, args: ReconfigArguments, callback: (error: unknown, reply?: ReconfigReply) => void): void {
  const header = new jute.protocol.RequestHeader();
  header.type = jute.OP_CODES.GET_DATA;
  const request = new jute.Request(header, new RawRecord(encodeReconfigRequest(args)));
  const toBuffer = request.toBuffer.bind(request);
  request.toBuffer = () => {
    const bytes = toBuffer();
    bytes.writeInt32BE(OP_RECONFIG, TYPE_OFFSET);
    return bytes;
  };
  (client as ClientInternals).connectionManager.queue(request, (error, response) => {
    if (error) return callback(error);
    callback(null, { data: response?.payload?.data ?? Buffer.alloc(0) });
  });
}

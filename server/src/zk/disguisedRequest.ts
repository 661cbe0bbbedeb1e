/**
 * How Keeper sends the ZooKeeper ops node-zookeeper-client 1.1.3 does not have (reconfig, sync,
 * whoAmI, removeWatches): through the library's own queue, so each gets an xid, keeps the session's request order
 * and has its reply matched through the library's pending queue. The library reads a reply by the
 * request's type, so the request is typed for it as an op whose reply reads the same way
 * (`readAs`), and only the bytes on the wire carry the real op code.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The library's ops a disguised request may be read as (each file says why its reply matches). */
export type LibraryOp = 'GET_DATA' | 'CREATE' | 'DELETE';

interface JuteModule {
  OP_CODES: Record<LibraryOp, number>;
  Request: new (header: unknown, payload: unknown) => { toBuffer(): Buffer };
  protocol: { RequestHeader: new () => { xid: number; type: number } };
}

const jute = require('node-zookeeper-client/lib/jute/index.js') as JuteModule;

/** Where the request type sits in a serialized request: after the 4-byte length and the 4-byte xid. */
const TYPE_OFFSET = 8;

/** What the library serializes after the header: one of its own records, or RawRecord. */
export interface JuteRecord {
  byteLength(): number;
  serialize(buffer: Buffer, offset: number): number;
  setChrootPath(path: string | undefined): void;
}

/** A record the library serializes as given (it asks its length, then writes it). */
class RawRecord implements JuteRecord {
  constructor(private readonly bytes: Buffer) {}
  byteLength(): number {
    return this.bytes.length;
  }
  serialize(buffer: Buffer, offset: number): number {
    return this.bytes.copy(buffer, offset);
  }
  /** The paths these ops carry are never under a chroot (/zookeeper/config, a sync's "/"): nothing to rewrite. */
  setChrootPath(): void {}
}

/**
 * A request for the library's `connectionManager.queue`: `body` is the record after the header,
 * as bytes or as one of the library's records with the same layout (its chroot handling then
 * applies), or null for none. `onXid` runs when the library serializes it, with its xid.
 */
export function disguisedRequest(wireOp: number, readAs: LibraryOp, body: Buffer | JuteRecord | null, onXid?: (xid: number) => void): unknown {
  const header = new jute.protocol.RequestHeader();
  header.type = jute.OP_CODES[readAs];
  const request = new jute.Request(header, Buffer.isBuffer(body) ? new RawRecord(body) : body);
  const toBuffer = request.toBuffer.bind(request);
  request.toBuffer = () => {
    onXid?.(header.xid);
    const bytes = toBuffer();
    bytes.writeInt32BE(wireOp, TYPE_OFFSET);
    return bytes;
  };
  return request;
}

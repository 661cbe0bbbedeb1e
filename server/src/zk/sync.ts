/**
 * ZooKeeper's sync (op code 9), which node-zookeeper-client 1.1.3 does not have. A member answers
 * it once it has applied everything the leader committed before the sync reached the leader, so a
 * read after it, in the same session, sees those commits (ZooKeeper's "sync, then read").
 * Checked against the Java client (ZooKeeper.sync) and zookeeper.jute:
 *
 *   RequestHeader { int xid; int type = 9 }
 *   SyncRequest   { ustring path }
 *   reply         ReplyHeader, then SyncResponse { ustring path }
 *
 * As reconfig.ts does, the request goes through the library's own queue (an xid, the session's
 * order, the reply matched through its pending queue). The library reads a reply by the request's
 * type, so the header says CREATE to it, whose reply is the same single ustring; only the bytes on
 * the wire say 9. The path does not narrow what is synced; "/" is sent, never under a chroot.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const OP_SYNC = 9;
/** Where the request type sits in a serialized request: after the 4-byte length and the 4-byte xid. */
const TYPE_OFFSET = 8;

interface JuteModule {
  OP_CODES: { CREATE: number };
  Request: new (header: unknown, payload: unknown) => { toBuffer(): Buffer };
  protocol: { RequestHeader: new () => { xid: number; type: number } };
}

interface ClientInternals {
  connectionManager: { queue(request: unknown, callback: (error: unknown) => void): void };
}

const jute = require('node-zookeeper-client/lib/jute/index.js') as JuteModule;

/** The SyncRequest record (after the header): one ustring. */
export function encodeSyncRequest(path = '/'): Buffer {
  const bytes = Buffer.from(path, 'utf8');
  const out = Buffer.alloc(4 + bytes.length);
  out.writeInt32BE(bytes.length, 0);
  bytes.copy(out, 4);
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
  /** The path does not matter to a sync: nothing to rewrite. */
  setChrootPath(): void {}
}

/** Sends one sync through `client`'s queue; the callback gets the library's exception (by code), or null once the member has caught up. */
export function sync(client: unknown, callback: (error: unknown) => void): void {
  const header = new jute.protocol.RequestHeader();
  header.type = jute.OP_CODES.CREATE;
  const request = new jute.Request(header, new RawRecord(encodeSyncRequest()));
  const toBuffer = request.toBuffer.bind(request);
  request.toBuffer = () => {
    const bytes = toBuffer();
    bytes.writeInt32BE(OP_SYNC, TYPE_OFFSET);
    return bytes;
  };
  (client as ClientInternals).connectionManager.queue(request, (error) => callback(error ?? null));
}

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
 * Sent disguised (disguisedRequest.ts) as CREATE, whose reply is the same single ustring. The path
 * does not narrow what is synced; "/" is sent, never under a chroot.
 */
import { disguisedRequest } from './disguisedRequest.js';

export const OP_SYNC = 9;

interface ClientInternals {
  connectionManager: { queue(request: unknown, callback: (error: unknown) => void): void };
}

/** The SyncRequest record (after the header): one ustring. */
export function encodeSyncRequest(path = '/'): Buffer {
  const bytes = Buffer.from(path, 'utf8');
  const out = Buffer.alloc(4 + bytes.length);
  out.writeInt32BE(bytes.length, 0);
  bytes.copy(out, 4);
  return out;
}

/** Sends one sync through `client`'s queue; the callback gets the library's exception (by code), or null once the member has caught up. */
export function sync(client: unknown, callback: (error: unknown) => void): void {
  (client as ClientInternals).connectionManager.queue(disguisedRequest(OP_SYNC, 'CREATE', encodeSyncRequest()), (error) => callback(error ?? null));
}

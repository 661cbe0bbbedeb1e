/**
 * whoAmI (op code 107, ZooKeeper 3.7+): the identities the member holds for this connection, as
 * its ACL checks see them: `ip 127.0.0.1`, `sasl keeper`, `x509 CN=keeper`, `digest ops`.
 * node-zookeeper-client does not know the op: it is sent disguised (disguisedRequest.ts) as DELETE,
 * whose reply the library reads as a bare header; the reply's body is read by xid in
 * wireExtension.ts before the library sees the frame.
 */
import { decodeReplyHeader, decodeWhoAmI, OP_WHO_AM_I, type ClientInfo } from './protocol.js';
import { disguisedRequest } from './disguisedRequest.js';
import type { WireExtension } from './wireExtension.js';

interface QueueOwner {
  queue(request: unknown, callback: (error: unknown) => void): void;
}

export function whoAmI(cm: QueueOwner, wire: WireExtension, callback: (error: unknown, identities?: ClientInfo[]) => void): void {
  let body: ClientInfo[] | null = null;
  let problem: unknown = null;
  let xid: number | null = null;
  // The library has just given the request its xid: read the reply's body when it comes.
  const request = disguisedRequest(OP_WHO_AM_I, 'DELETE', null, (given) => {
    xid = given;
    wire.expectFrame(given, (frame) => {
      try {
        const { header: reply, rest } = decodeReplyHeader(frame.subarray(4));
        if (reply.err === 0) body = decodeWhoAmI(rest);
      } catch (error) {
        problem = error;
      }
    });
  });
  cm.queue(request, (error: unknown) => {
    if (xid !== null) wire.forgetFrame(xid);
    if (error) return callback(error);
    if (problem || body === null) return callback(problem ?? new Error('whoAmI answered without a body'));
    callback(null, body);
  });
}

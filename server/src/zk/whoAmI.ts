/**
 * whoAmI (op code 107, ZooKeeper 3.7+): the identities the member holds for this connection, as
 * its ACL checks see them: `ip 127.0.0.1`, `sasl keeper`, `x509 CN=keeper`, `digest ops`.
 * node-zookeeper-client does not know the op: the request goes through its queue (so it keeps the
 * session's request order and gets an xid), typed as DELETE for the library, whose reply to a
 * DELETE is a bare header; the bytes on the wire say 107, and the reply's body is read by xid in
 * wireExtension.ts before the library sees the frame.
 */
import { createRequire } from 'node:module';
import { decodeReplyHeader, decodeWhoAmI, OP_WHO_AM_I, type ClientInfo } from './protocol.js';
import type { WireExtension } from './wireExtension.js';

const require = createRequire(import.meta.url);

interface JuteModule {
  OP_CODES: { DELETE: number };
  Request: new (header: unknown, payload: unknown) => { toBuffer(): Buffer };
  protocol: { RequestHeader: new () => { xid: number; type: number } };
}

const jute = require('node-zookeeper-client/lib/jute/index.js') as JuteModule;

/** Where the request type sits in a serialized request: after the 4-byte length and the 4-byte xid. */
const TYPE_OFFSET = 8;

interface QueueOwner {
  queue(request: unknown, callback: (error: unknown) => void): void;
}

export function whoAmI(cm: QueueOwner, wire: WireExtension, callback: (error: unknown, identities?: ClientInfo[]) => void): void {
  const header = new jute.protocol.RequestHeader();
  header.type = jute.OP_CODES.DELETE;
  const request = new jute.Request(header, null);
  const toBuffer = request.toBuffer.bind(request);
  let body: ClientInfo[] | null = null;
  let problem: unknown = null;
  let xid: number | null = null;
  request.toBuffer = () => {
    // The library has just given the request its xid: read the reply's body when it comes.
    xid = header.xid;
    wire.expectFrame(header.xid, (frame) => {
      try {
        const { header: reply, rest } = decodeReplyHeader(frame.subarray(4));
        if (reply.err === 0) body = decodeWhoAmI(rest);
      } catch (error) {
        problem = error;
      }
    });
    const bytes = toBuffer();
    bytes.writeInt32BE(OP_WHO_AM_I, TYPE_OFFSET);
    return bytes;
  };
  cm.queue(request, (error: unknown) => {
    if (xid !== null) wire.forgetFrame(xid);
    if (error) return callback(error);
    if (problem || body === null) return callback(problem ?? new Error('whoAmI answered without a body'));
    callback(null, body);
  });
}

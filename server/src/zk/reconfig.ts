/**
 * ZooKeeper's reconfig (op code 16, 3.5+), which node-zookeeper-client 1.1.3 does not have.
 * Checked against the Java client (ZooKeeperAdmin.reconfigure) and zookeeper.jute:
 *
 *   RequestHeader   { int xid; int type = 16 }
 *   ReconfigRequest { ustring joiningServers; ustring leavingServers; ustring newMembers; long curConfigId }
 *   reply           ReplyHeader, then GetDataResponse { buffer data; Stat stat }
 *
 * A null ustring is written as length -1; curConfigId -1 means "whatever the version" (Keeper
 * always sends the version it read: docs/design/reconfig.md). Sent disguised (disguisedRequest.ts) as
 * GET_DATA, whose reply is the same GetDataResponse: the callback gets the new configuration and
 * its stat.
 */
import { disguisedRequest } from './disguisedRequest.js';

export const OP_RECONFIG = 16;

interface ClientInternals {
  connectionManager: {
    queue(request: unknown, callback: (error: unknown, response?: { payload?: { data?: Buffer; stat?: unknown } }) => void): void;
  };
}

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

export interface ReconfigReply {
  /** The new configuration's text (as /zookeeper/config holds it). */
  data: Buffer;
}

/** Sends one reconfig through `client`'s queue; the callback gets the library's exception (by code) or the new configuration. */
export function reconfig(client: unknown, args: ReconfigArguments, callback: (error: unknown, reply?: ReconfigReply) => void): void {
  (client as ClientInternals).connectionManager.queue(disguisedRequest(OP_RECONFIG, 'GET_DATA', encodeReconfigRequest(args)), (error, response) => {
    if (error) return callback(error);
    callback(null, { data: response?.payload?.data ?? Buffer.alloc(0) });
  });
}

/**
 * ZooKeeper's real size limit. A member compares `jute.maxbuffer` (1,048,575 bytes by default)
 * with the length of the WHOLE request packet, not with the data alone, and drops the
 * connection (taking every request on the session with it) when the packet is longer. So the
 * console counts the packet exactly, the way node-zookeeper-client serialises it, and refuses
 * before sending. Pure, for the server and the browser alike.
 *
 * The packet (after its own 4-byte length prefix, which the member does not count):
 *  - request header: xid and type, 4 + 4 bytes;
 *  - path: 4-byte length + its UTF-8 bytes (the chroot included: the client prepends it);
 *  - data: 4-byte length + the bytes;
 *  - setData: a 4-byte version;
 *  - create: the ACL vector (4-byte count; per entry 4-byte perms + scheme and id, each a
 *    4-byte length + UTF-8 bytes) and 4-byte flags.
 */

/** ZooKeeper's default `jute.maxbuffer` (0xfffff). */
export const DEFAULT_JUTE_MAX_BUFFER = 1_048_575;

const INT = 4;
const HEADER = INT + INT;

/** UTF-8 length of a JavaScript string, as Buffer.byteLength counts it (a lone surrogate is 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** The path as it goes on the wire: the client prepends the connection string's chroot. */
export function wirePath(path: string, chroot: string | null): string {
  if (!chroot || chroot === '/') return path;
  return path === '/' ? chroot : `${chroot}${path}`;
}

/** `path` as the console names it; `chroot` (from the connection string) goes on the wire before it. */
export type SizedRequest =
  | { op: 'setData'; path: string; chroot?: string | null; dataBytes: number }
  | { op: 'create'; path: string; chroot?: string | null; dataBytes: number; acl: readonly { scheme: string; id: string }[] };

/** Bytes of a ustring or buffer field: 4-byte length + content. */
const field = (contentBytes: number) => INT + contentBytes;

/** Everything in the packet except the data's own bytes. */
export function requestOverheadBytes(request: SizedRequest): number {
  const common = HEADER + field(utf8Length(wirePath(request.path, request.chroot ?? null))) + INT; // header, path, data length
  if (request.op === 'setData') return common + INT; // version
  const acl = INT + request.acl.reduce((sum, a) => sum + INT + field(utf8Length(a.scheme)) + field(utf8Length(a.id)), 0);
  return common + acl + INT; // flags
}

/** The length the member compares with jute.maxbuffer. */
export function requestPacketBytes(request: SizedRequest): number {
  return requestOverheadBytes(request) + request.dataBytes;
}

/** The most data this request can carry under `limit` (0 when even empty data does not fit). */
export function maxDataBytesFor(request: SizedRequest, limit: number): number {
  return Math.max(0, limit - requestOverheadBytes(request));
}

export type SizeCheck = { ok: true; packetBytes: number } | { ok: false; packetBytes: number; overBy: number; maxDataBytes: number; reason: string };

const n = (value: number) => value.toLocaleString('en-US');

/**
 * Whether the member will accept the request. The reason says the limit, by how much the
 * request is over, and how to raise the limit (members and Keeper together: raising only
 * Keeper's setting makes the member drop the connection instead).
 */
export function checkRequestSize(request: SizedRequest, limit: number): SizeCheck {
  const packetBytes = requestPacketBytes(request);
  if (packetBytes <= limit) return { ok: true, packetBytes };
  const overBy = packetBytes - limit;
  const maxDataBytes = maxDataBytesFor(request, limit);
  const reason =
    `${request.op} ${request.path}: the request would be ${n(packetBytes)} bytes (${n(request.dataBytes)} of data + ${n(packetBytes - request.dataBytes)} of path and protocol), ` +
    `${n(overBy)} over the ensemble's limit of ${n(limit)} (jute.maxbuffer); at this path the data can be at most ${n(maxDataBytes)} bytes. ` +
    `Nothing was sent. To allow more, raise jute.maxbuffer on every ZooKeeper member and Keeper's "juteMaxBuffer" setting for this ensemble, together.`;
  return { ok: false, packetBytes, overBy, maxDataBytes, reason };
}

/**
 * What a contender's data says about who it is:
 *  - kazoo writes the `identifier` given to Lock/Election/Semaphore as UTF-8 (empty by default);
 *  - Curator writes the participant id (LeaderLatch, LeaderSelector) or, by default, the
 *    client's IP address as text (CuratorFrameworkFactory's local address);
 *  - ZooKeeper's recipes write a host name (election) or fixed bytes (WriteLock: 0x12 0x34).
 * The text is decided by znodeData's rules, so a value reads the same here and in the tree.
 */
import { encodeZnodeData } from '../znodeData.js';
import type { ContenderData, ContenderRole, RecipeLibrary } from './schemas.js';

/** Identifiers are short; a long value is cut for display. */
export const CONTENDER_DATA_PREVIEW_BYTES = 512;

function textOf(bytes: Uint8Array | null): { text: string; binary: boolean; size: number } | null {
  if (bytes === null || bytes.length === 0) return null;
  const encoded = encodeZnodeData(bytes, CONTENDER_DATA_PREVIEW_BYTES);
  if (encoded.encoding === 'base64') return { text: `${encoded.size} bytes`, binary: true, size: encoded.size };
  return { text: encoded.truncated ? `${encoded.value}…` : encoded.value, binary: false, size: encoded.size };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
// Java's InetAddress.getHostAddress() prints IPv6 in full hex groups, maybe with a %scope.
const IPV6 = /^[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}(%[\w.-]+)?$/;

export function isIpAddress(text: string): boolean {
  return IPV4.test(text) || IPV6.test(text);
}

/** kazoo's identifier (Lock, Election, Semaphore, LockingQueue's consumer id): the data as UTF-8; null when empty or binary. */
export function decodeKazooIdentifier(bytes: Uint8Array | null): string | null {
  const t = textOf(bytes);
  return t === null || t.binary ? null : t.text;
}

/** Curator's node data: an IP address is the client's default data, other text a participant id. */
export function decodeCuratorData(bytes: Uint8Array | null): { participantId: string | null; clientIp: string | null } {
  const t = textOf(bytes);
  if (t === null || t.binary) return { participantId: null, clientIp: null };
  return isIpAddress(t.text) ? { participantId: null, clientIp: t.text } : { participantId: t.text, clientIp: null };
}

/** The data of a contender of a recipe from `library`; queue items carry a payload, not an identity. */
export function decodeContenderData(library: RecipeLibrary, role: ContenderRole, bytes: Uint8Array | null): ContenderData {
  const t = textOf(bytes);
  if (t === null) return { kind: 'empty', text: null };
  if (t.binary) return { kind: 'binary', text: t.text };
  if (role === 'item') return { kind: 'text', text: t.text };
  switch (library) {
    case 'kazoo':
      return { kind: 'identifier', text: t.text };
    case 'curator':
      return { kind: isIpAddress(t.text) ? 'client-ip' : 'participant-id', text: t.text };
    case 'zookeeper':
    case 'config':
      return { kind: 'text', text: t.text };
    default: {
      const unreachable: never = library;
      throw new Error(`unknown library ${String(unreachable)}`);
    }
  }
}

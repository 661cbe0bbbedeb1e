/**
 * The dynamic configuration as `/zookeeper/config` (or `conf`) prints it, and the `server.N=`
 * lines an operator types to add a member, checked as strictly as ZooKeeper's incremental
 * reconfig checks them (QuorumPeer.QuorumServer: a quorum port, an election port and a client
 * port, an optional role word). Each member keeps its own line, so that a role change rewrites
 * only the role word and leaves multi-address and client parts as they were.
 */
import { parseServerLine, type ConfiguredRole, type ServerSpec } from '../ensemble/parse/serverLine.js';

export interface ConfigMember extends ServerSpec {
  /** The value after `server.N=`, as configured. */
  value: string;
}

export interface DynamicConfig {
  /** `version=` as printed (hex, no 0x); null when the text has none (a static 3.4-style config). */
  version: string | null;
  members: ConfigMember[];
}

/** The longest id ZooKeeper's myid file holds in practice (its sid is a long; 1..255 by convention, we allow more). */
export const MAX_SERVER_ID = 2_147_483_647;

const ID = /^server\.(\d{1,10})$/;

export function parseDynamicConfig(text: string): DynamicConfig {
  const members: ConfigMember[] = [];
  let version: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const eq = line.indexOf('=');
    if (line === '' || line.startsWith('#') || eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (key === 'version') version = value.replace(/^0x/i, '').toLowerCase();
    const spec = parseServerLine(key, value);
    if (spec) members.push({ ...spec, value });
  }
  members.sort((a, b) => a.id - b.id);
  return { version, members };
}

/** `version=` (hex) as the long ZooKeeper's `fromConfig` takes; null when it is not hex. */
export function configVersionNumber(version: string): bigint | null {
  return /^[0-9a-f]{1,16}$/i.test(version) ? BigInt(`0x${version}`) : null;
}

export type ParsedAddLine = { ok: true; member: ConfigMember; line: string } | { ok: false; reason: string };

/**
 * One `server.N=host:quorumPort:electionPort[:participant|observer];[clientHost:]clientPort` line to
 * add. Stricter than the display parser: every port present and in range, one address (no `|`
 * multi-address: say it rather than take the first), a known role word, no spaces or commas (a
 * comma separates servers in ZooKeeper's joining list).
 */
export function parseAddLine(text: string): ParsedAddLine {
  const line = text.trim();
  const show = JSON.stringify(line.slice(0, 120));
  const bad = (why: string): ParsedAddLine => ({
    ok: false,
    reason: `${show} is not a server line: ${why} (expected server.<id>=<host>:<quorumPort>:<electionPort>:participant;<clientHost>:<clientPort>)`,
  });
  if (/[\s,]/.test(line)) return bad('it holds a space or a comma');
  const eq = line.indexOf('=');
  if (eq <= 0) return bad('no "="');
  const key = line.slice(0, eq);
  const value = line.slice(eq + 1);
  const id = ID.exec(key);
  if (!id) return bad('the key must be server.<id>');
  const sid = Number(id[1]);
  if (sid < 1 || sid > MAX_SERVER_ID) return bad(`the id must be from 1 to ${MAX_SERVER_ID}`);
  if (value.includes('|')) return bad('multi-address lines (with |) are not supported by Keeper yet');
  const parts = value.split(';');
  if (parts.length !== 2 || parts[1] === '') return bad('the client part after ";" is missing (ZooKeeper needs a client port to add a member)');
  const quorum = parts[0]!;
  const roleWord = /:(participant|observer)$/i.exec(quorum)?.[1];
  const hostPorts = roleWord ? quorum.slice(0, -roleWord.length - 1) : quorum;
  if (!roleWord && /:[a-z]+$/i.test(quorum)) return bad('the role must be participant or observer');
  if (!/^(\[[0-9a-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}:\d{1,5}$/i.test(hostPorts)) return bad('the quorum part must be host:quorumPort:electionPort');
  const spec = parseServerLine(key, value);
  if (!spec || spec.peerPort === null || spec.electionPort === null) return bad('a port is out of range (1..65535)');
  if (spec.clientPort === null) return bad('the client port is missing or out of range');
  if (spec.peerPort === spec.electionPort) return bad('the quorum and election ports must differ');
  return { ok: true, member: { ...spec, value }, line: `server.${sid}=${value}` };
}

/** The member's own line with its role word set to `role` (appended when it had none). */
export function withRole(member: ConfigMember, role: ConfiguredRole): string {
  const [quorum = '', ...rest] = member.value.split(';');
  // ZooKeeper reads the role after the last address of a multi-address line.
  const addresses = quorum.split('|').map((address) => address.replace(/:(participant|observer)$/i, ''));
  return `server.${member.id}=${[`${addresses.join('|')}:${role}`, ...rest].join(';')}`;
}

/** "host:port" endpoints a member listens on (quorum, election, client), for clash checks. */
export function endpointsOf(m: ServerSpec): string[] {
  const out: string[] = [];
  if (m.peerPort !== null) out.push(`${m.host}:${m.peerPort}`);
  if (m.electionPort !== null) out.push(`${m.host}:${m.electionPort}`);
  if (m.clientPort !== null) out.push(`${m.clientHost ?? m.host}:${m.clientPort}`);
  return out;
}

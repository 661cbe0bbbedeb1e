/**
 * The dynamic configuration as `/zookeeper/config` (or `conf`) prints it, and the `server.N=`
 * lines an operator types to add a member, checked as strictly as ZooKeeper's incremental
 * reconfig checks them (QuorumPeer.QuorumServer: a quorum port, an election port and a client
 * port, an optional role word). Each member keeps its own line, so that a role change rewrites
 * only the role word and leaves multi-address and client parts as they were.
 */
import { parseServerLine, type ConfiguredRole, type ServerSpec } from '../ensemble/parse/serverLine.js';
import { isServerLineHost, MEMBER_HOST_FORMS, memberPort } from './address.js';

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

/** "host:p1:p2" or "[v6]:p1" -> the host as written (brackets kept) and the ports' text; null when a bracket is not closed. */
function splitAddress(text: string): { host: string; ports: string[] } | null {
  if (!text.startsWith('[')) {
    const [host = '', ...ports] = text.split(':');
    return { host, ports };
  }
  const close = text.indexOf(']');
  if (close === -1) return null;
  const rest = text.slice(close + 1);
  return { host: text.slice(0, close + 1), ports: rest === '' ? [] : rest.startsWith(':') ? rest.slice(1).split(':') : [rest] };
}

const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** Why `host` (the part named `what`) is no host, or null. */
function hostProblem(what: string, host: string): string | null {
  return isServerLineHost(host) ? null : `the ${what} ${quoted(host)} is not a host name or an IP address (use ${MEMBER_HOST_FORMS})`;
}

/** Why `text` (the port named `what`) is no port, or null. */
function portProblem(what: string, text: string): string | null {
  if (memberPort(text) !== null) return null;
  return /^\d+$/.test(text) ? `the ${what} ${quoted(text)} is out of range (1..65535)` : `the ${what} ${quoted(text)} is not a port number (1..65535)`;
}

/** Said when an unbracketed host may be an IPv6 address: more colons than `ports` ports need. */
const ipv6Hint = (address: { host: string; ports: string[] } | null, ports: number) =>
  address !== null && !address.host.startsWith('[') && address.ports.length > ports ? ' (an IPv6 address is written in brackets: [2001:db8::4])' : '';

/** The client part: a port alone (every interface), or clientHost:clientPort. */
function clientProblem(text: string): string | null {
  if (/^\d+$/.test(text)) return portProblem('client port', text);
  const address = splitAddress(text);
  if (!address || address.ports.length !== 1) return `the client part must be clientPort or clientHost:clientPort${ipv6Hint(address, 1)}`;
  return hostProblem('client host', address.host) ?? portProblem('client port', address.ports[0]!);
}

/**
 * One `server.N=host:quorumPort:electionPort[:participant|observer];[clientHost:]clientPort` line to
 * add. Stricter than the display parser: every port present and a number in range, each host a
 * host name or an address (address.ts: what reaches a startCommand must be safe to paste), one
 * address (no `|` multi-address: say it rather than take the first), a known role word, no spaces
 * or commas (a comma separates servers in ZooKeeper's joining list). A refusal names the bad part.
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
  const address = splitAddress(hostPorts);
  if (!address || address.ports.length !== 2) return bad(`the quorum part must be host:quorumPort:electionPort${ipv6Hint(address, 2)}`);
  const problem =
    hostProblem('host', address.host) ??
    portProblem('quorum port', address.ports[0]!) ??
    portProblem('election port', address.ports[1]!) ??
    clientProblem(parts[1]!);
  if (problem !== null) return bad(problem);
  const spec = parseServerLine(key, value);
  if (!spec || spec.peerPort === null || spec.electionPort === null || spec.clientPort === null) return bad('a port is out of range (1..65535)');
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

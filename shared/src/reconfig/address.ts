/**
 * What a resize accepts as a member's host and port (issue 34 item 12). A server line's host ends
 * up in a zkCli command, in a joiner's files and in the admin's startCommand, which an operator
 * pastes into a shell: `$(id)`, backticks or `-oProxyCommand=…` (read by ssh as an option) must
 * never get that far. So a host is an RFC 1123 host name, an IPv4 address or an IPv6 address, and
 * a port is a decimal number from 1 to 65535; anything else is refused where the line is read.
 */
import { ipBytes } from '../consoleAclAccess.js';

/** Said after a refused host, so the operator knows what would do. */
export const MEMBER_HOST_FORMS = 'a host name of letters, digits, "-", "_" and ".", an IPv4 address or an IPv6 address in brackets';

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
// RFC 1123 2.1: letters, digits and hyphens, 1 to 63 of them, neither first nor last a hyphen. Plus
// "_", which RFC 1123 lacks but real hosts have (Docker Compose's project_zk_1) and no shell reads.
const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

export function isIPv4Address(text: string): boolean {
  return IPV4.test(text);
}

/** Full, "::"-shortened or with an IPv4 tail (::ffff:10.0.0.1); no zone id. */
export function isIPv6Address(text: string): boolean {
  if (!text.includes(':')) return false;
  const tail = text.slice(text.lastIndexOf(':') + 1);
  if (!tail.includes('.')) return ipBytes(text) !== null;
  // An IPv4 tail stands for the last two groups.
  return isIPv4Address(tail) && ipBytes(`${text.slice(0, text.length - tail.length)}0:0`) !== null;
}

export function isHostName(text: string): boolean {
  if (text.length === 0 || text.length > 253) return false;
  const labels = text.split('.');
  // A name ending in an all-digit label reads as an IPv4 address (RFC 1123 2.1), so it must be one: 300.1.1.1 is neither.
  if (/^\d+$/.test(labels.at(-1)!)) return false;
  return labels.every((label) => LABEL.test(label));
}

/** A host as a server line writes it: a name, an IPv4 address, or an IPv6 address in brackets (ZooKeeper splits the rest on ":"). */
export function isServerLineHost(text: string): boolean {
  if (text.startsWith('[') && text.endsWith(']')) return isIPv6Address(text.slice(1, -1));
  return isIPv4Address(text) || isHostName(text);
}

/** A host as parsed out of a line (brackets gone) or in brackets: what a template may be filled with. */
export function isMemberHost(text: string): boolean {
  return isServerLineHost(text) || isIPv6Address(text);
}

/** The port written as text: decimal digits only, 1..65535; null otherwise. */
export function memberPort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= 65_535 ? n : null;
}

export const isMemberPort = (n: number | null): n is number => n !== null && Number.isInteger(n) && n >= 1 && n <= 65_535;

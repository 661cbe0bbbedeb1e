/**
 * ZooKeeper connection strings, checked with the rules of ZooKeeper's ConnectStringParser
 * (chroot = everything from the first '/', "/" alone means none, port defaults to 2181)
 * and the limits of node-zookeeper-client (no IPv6 literals: it splits on ':').
 */
import { checkPath } from '@keeper/shared';

export const DEFAULT_CLIENT_PORT = 2181;

export interface ZkServerAddress {
  host: string;
  port: number;
}

export interface ParsedConnectionString {
  servers: ZkServerAddress[];
  chroot: string | null;
  /** host:port,...[/chroot] with every port explicit and no whitespace. */
  normalized: string;
}

export type ConnectionStringResult = { ok: true; value: ParsedConnectionString } | { ok: false; reason: string };

// RFC 1123 labels; '_' tolerated because docker-compose service names use it.
const HOST = /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$/;

function parseServer(entry: string, index: number): ZkServerAddress | string {
  const where = `server ${index + 1} (${JSON.stringify(entry)})`;
  if (entry.length === 0) return `server ${index + 1} is empty (stray comma?)`;
  if (entry.startsWith('[') || entry.split(':').length > 2) {
    return `${where}: IPv6 literals are not supported by the ZooKeeper client; use a host name`;
  }
  const [host = '', portText] = entry.split(':');
  if (!HOST.test(host)) return `${where}: "${host}" is not a valid host name or IPv4 address`;
  if (portText === undefined) return { host, port: DEFAULT_CLIENT_PORT };
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535)) return `${where}: port must be a number from 1 to 65535`;
  return { host, port };
}

export function parseConnectionString(input: string): ConnectionStringResult {
  const text = input.trim();
  if (text.length === 0) return { ok: false, reason: 'connection string is empty' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    return { ok: false, reason: 'connection string takes host:port,... without a scheme (no zk:// or http://)' };
  }
  const slash = text.indexOf('/');
  const hostPart = slash === -1 ? text : text.slice(0, slash);
  let chroot = slash === -1 ? null : text.slice(slash);
  if (chroot === '/') chroot = null;
  if (chroot !== null) {
    const check = checkPath(chroot);
    if (!check.ok) return { ok: false, reason: `chroot "${chroot}": ${check.reason}` };
  }
  const servers: ZkServerAddress[] = [];
  for (const [i, entry] of hostPart.split(',').entries()) {
    const server = parseServer(entry.trim(), i);
    if (typeof server === 'string') return { ok: false, reason: server };
    servers.push(server);
  }
  const normalized = servers.map((s) => `${s.host}:${s.port}`).join(',') + (chroot ?? '');
  return { ok: true, value: { servers, chroot, normalized } };
}

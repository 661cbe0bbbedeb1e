/**
 * `conf` and the content of /zookeeper/config: "key=value" lines, with `membership:` and
 * `server.N=` lines on quorum members and `version=<hex>` for the dynamic configuration.
 * Servers whose client port is not in their line (3.4 style) get the top-level clientPort.
 */
import { toInteger } from './numbers.js';
import { parseServerLine, type ServerSpec } from './serverLine.js';

export interface ConfInfo {
  settings: Map<string, string>;
  /** This member's own id (conf's serverId); null in /zookeeper/config. */
  serverId: number | null;
  servers: ServerSpec[];
  /** The dynamic configuration's version (hex, as printed), if any. */
  configVersion: string | null;
}

export function parseConf(text: string): ConfInfo {
  const settings = new Map<string, string>();
  const servers: ServerSpec[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue; // "membership:" and anything else without a value
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    const server = parseServerLine(key, value);
    if (server) servers.push(server);
    else settings.set(key, value);
  }
  const clientPort = toInteger(settings.get('clientPort'));
  for (const server of servers) {
    if (server.clientPort === null && clientPort !== null && clientPort > 0) server.clientPort = clientPort;
  }
  servers.sort((a, b) => a.id - b.id);
  return {
    settings,
    serverId: toInteger(settings.get('serverId')),
    servers,
    configVersion: settings.get('version') ?? null,
  };
}

/** maxClientCnxns from a member's `conf` (connections per client address; 0 = no cap); null when absent. */
export function maxClientCnxnsFromConf(text: string): number | null {
  return toInteger(parseConf(text).settings.get('maxClientCnxns'));
}

/** The same from the AdminServer's `configuration` command (`max_client_cnxns`). */
export function maxClientCnxnsFromAdmin(body: Record<string, unknown>): number | null {
  const value = body['max_client_cnxns'];
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

/**
 * What a member's own `conf` says of itself: its limit and its server id. A TLS-only member's
 * `server.N` line has no client address (secureClientPort is not part of the dynamic
 * configuration), so its own serverId is how Keeper learns which configured member is N.
 */
export interface OwnConf {
  maxClientCnxns: number | null;
  serverId: number | null;
}

export function ownConfFromText(text: string): OwnConf {
  const conf = parseConf(text);
  return { maxClientCnxns: toInteger(conf.settings.get('maxClientCnxns')), serverId: conf.serverId };
}

/** The same from the AdminServer's `configuration` command (`max_client_cnxns`, `server_id`). */
export function ownConfFromAdmin(body: Record<string, unknown>): OwnConf {
  const id = body['server_id'];
  return { maxClientCnxns: maxClientCnxnsFromAdmin(body), serverId: typeof id === 'number' && Number.isInteger(id) ? id : null };
}

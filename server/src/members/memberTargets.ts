/**
 * Which members to poll: the configured list (host, clientPort, adminPort: the sandbox
 * passes them), else the hosts of the connection string; then enriched with the ensemble's
 * own membership (server ids and participant/observer roles from `conf` or
 * /zookeeper/config), which also reveals members the connection string left out.
 */
import type { ServerSpec } from '@keeper/shared';
import { parseConnectionString } from '../config/connectionString.js';
import type { EnsembleConfig } from '../config/types.js';
import type { SameHost } from './hostAliases.js';
import type { MemberAddress } from './transport.js';

export interface MemberTarget extends MemberAddress {
  id: number | null;
  configuredRole: 'participant' | 'observer' | null;
}

export function address(host: string, clientPort: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${clientPort}`;
}

function target(host: string, clientPort: number, adminPort: number | null): MemberTarget {
  return { host, clientPort, adminPort, address: address(host, clientPort), id: null, configuredRole: null };
}

export function initialTargets(config: Pick<EnsembleConfig, 'members' | 'connectionString'>): MemberTarget[] {
  if (config.members && config.members.length > 0) return config.members.map((m) => target(m.host, m.clientPort, m.adminPort ?? null));
  const parsed = parseConnectionString(config.connectionString);
  if (!parsed.ok) return [];
  const seen = new Set<string>();
  return parsed.value.servers.map((s) => target(s.host, s.port, null)).filter((t) => !seen.has(t.address) && seen.add(t.address));
}

/** Every host name the targets and the membership use (what a SameHost must know). */
export function hostNames(targets: readonly MemberTarget[], servers: readonly ServerSpec[]): string[] {
  return [...targets.map((t) => t.host), ...servers.flatMap((s) => [s.host, clientHostOf(s)])];
}

/** The host clients use: the configured client host, else the quorum host (a wildcard client host says "every interface"). */
function clientHostOf(server: ServerSpec): string {
  return server.clientHost ?? server.host;
}

/**
 * Targets after learning the membership: ids and roles for the ones that match (same host
 * and client port), new targets for servers nobody configured. A configured member that is
 * not in the membership is kept (maybe a stale config; its poll will say). `sameHost` says
 * whether two names are one machine ("localhost" and "127.0.0.1"): the same name is tried
 * first, then an alias, so a member named differently is not polled (and counted) twice.
 */
export function mergeMembership(targets: readonly MemberTarget[], servers: readonly ServerSpec[], sameHost: SameHost = (a, b) => a === b): MemberTarget[] {
  const next = targets.map((t) => ({ ...t }));
  for (const server of servers) {
    if (server.clientPort === null) continue;
    const host = clientHostOf(server);
    const onPort = next.filter((t) => t.clientPort === server.clientPort);
    const match =
      onPort.find((t) => t.host === host || t.host === server.host) ??
      onPort.find((t) => sameHost(t.host, host) || sameHost(t.host, server.host)) ??
      next.find((t) => t.id === server.id);
    if (match) {
      match.id = server.id;
      match.configuredRole = server.role;
      continue;
    }
    next.push({ ...target(host, server.clientPort, null), id: server.id, configuredRole: server.role });
  }
  return next;
}

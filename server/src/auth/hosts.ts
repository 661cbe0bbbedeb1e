/**
 * DNS rebinding defence: a page on evil.example whose name is later pointed at 127.0.0.1 is
 * same-origin with itself, so the browser lets it read this console's answers; only the Host
 * header (evil.example) gives it away. Requests are answered only for the names this console is
 * meant to be reached by: the bound address, the loopback names when bound to loopback (or to
 * every interface), this machine's name when bound to every interface, the hosts of
 * `allowedOrigins`, and `allowedHosts`. An IP literal is always fine: no name, nothing to rebind.
 */
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { isLoopbackHost, normalizeOrigin } from './origin.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** "Example.COM:8080" -> "example.com", "[::1]:80" -> "::1"; null when it is not a host. */
export function hostNameOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return bracketed[1] ?? null;
  const plain = /^([a-z0-9.-]{1,253}|[0-9a-f:]+)(?::\d{1,5})?$/.exec(value);
  if (!plain?.[1]) return null;
  return plain[1].replace(/\.$/, '');
}

export function allowedHostNames(boundHost: string, allowedOrigins: readonly string[], allowedHosts: readonly string[]): Set<string> {
  const bound = boundHost.replace(/^\[|\]$/g, '').toLowerCase();
  const names = new Set<string>([bound]);
  if (isLoopbackHost(bound) || WILDCARDS.has(bound)) for (const n of LOOPBACK_NAMES) names.add(n);
  if (WILDCARDS.has(bound)) names.add(hostname().toLowerCase());
  for (const origin of allowedOrigins) {
    const normalized = normalizeOrigin(origin);
    if (normalized) names.add(new URL(normalized).hostname.replace(/^\[|\]$/g, ''));
  }
  for (const h of allowedHosts) {
    const name = hostNameOf(h);
    if (name) names.add(name);
  }
  return names;
}

export type HostVerdict = { ok: true } | { ok: false; reason: string };

export function checkHost(header: string | undefined, allowed: ReadonlySet<string>): HostVerdict {
  // HTTP/1.0 clients may omit Host; nothing a browser page sends.
  if (header === undefined) return { ok: true };
  const name = hostNameOf(header);
  if (name === null) return { ok: false, reason: 'the Host header is not a host name' };
  if (isIP(name) !== 0 || allowed.has(name)) return { ok: true };
  return {
    ok: false,
    reason: `this console is not served as ${JSON.stringify(name.slice(0, 253))}; add it to "allowedHosts" (or KEEPER_ALLOWED_HOSTS) if it should be`,
  };
}

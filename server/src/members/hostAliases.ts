/**
 * Do two host names point at the same machine? The connection string and the ensemble's
 * own server list often name members differently ("localhost" vs "127.0.0.1", a short name
 * vs an FQDN or an IP). Compared by name only, one member becomes two targets, and the
 * quorum counts twice as many voters (a 3-member ensemble looked like 6, with a false
 * "even number of voters" alert). Names that resolve to a shared address are one host.
 *
 * Resolution has a deadline (a slow resolver must not stall a poll round) and failures are
 * not fatal: an unresolvable name is only equal to itself.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export type SameHost = (a: string, b: string) => boolean;

export type Resolve = (host: string) => Promise<readonly string[]>;

const RESOLVE_DEADLINE_MS = 1_000;

async function systemResolve(host: string): Promise<readonly string[]> {
  if (isIP(host)) return [host];
  const answers = await lookup(host, { all: true });
  return answers.map((a) => a.address);
}

function withDeadline<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([promise.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}

/** A SameHost for these names: resolves each once (in parallel, with a deadline), then compares address sets. */
export async function hostMatcher(hosts: Iterable<string>, resolve: Resolve = systemResolve, deadlineMs = RESOLVE_DEADLINE_MS): Promise<SameHost> {
  const unique = [...new Set(hosts)];
  const resolved = await Promise.all(unique.map(async (h) => [h, new Set(await withDeadline(resolve(h), deadlineMs, [] as readonly string[]))] as const));
  const addresses = new Map(resolved);
  return (a, b) => {
    if (a === b) return true;
    const left = addresses.get(a);
    const right = addresses.get(b);
    if (!left || !right) return false;
    for (const address of left) if (right.has(address)) return true;
    return false;
  };
}

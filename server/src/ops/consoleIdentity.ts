/**
 * Who the console is to ZooKeeper's ACL checks, for one ensemble: the digest ids of the
 * credentials it adds, and the address the members see its connection come from. Feeds
 * consoleAccessUnder (shared/consoleAclAccess.ts) to warn before an ACL locks the console out.
 */
import { createHash } from 'node:crypto';
import type { ConsoleIdentity } from '@keeper/shared';
import { parseConnectionString } from '../config/connectionString.js';

/** ZooKeeper's DigestAuthenticationProvider.generateDigest: "user:" + base64(sha1("user:password")). */
export function digestIdOf(credential: string): string {
  const user = credential.slice(0, credential.indexOf(':'));
  return `${user}:${createHash('sha1').update(credential, 'utf8').digest('base64')}`;
}

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * A connection to 127.x.y.z comes from 127.0.0.1 (Linux picks the loopback source for it), so a
 * connection string of loopback addresses only tells the address. Any other host (including
 * "localhost", which may be ::1 or 127.0.0.1) leaves it unknown: it depends on routes and NAT.
 */
export function addressMembersSee(connectionString: string): string | null {
  const parsed = parseConnectionString(connectionString);
  if (!parsed.ok || parsed.value.servers.length === 0) return null;
  return parsed.value.servers.every((s) => IPV4_LOOPBACK.test(s.host)) ? '127.0.0.1' : null;
}

export function chrootOf(connectionString: string): string | null {
  const parsed = parseConnectionString(connectionString);
  return parsed.ok ? parsed.value.chroot : null;
}

/**
 * `whoAmI`: the ids ZooKeeper reported for the console's session (null before it answered, or on
 * a member older than 3.7). Its sasl and x509 ids count in ACL checks, and its ip id is the
 * address the members see, better than guessing it from the connection string.
 */
export function consoleIdentityOf(
  connectionString: string,
  auth: readonly { scheme: 'digest'; credential: string }[] = [],
  whoAmI: readonly { scheme: string; id: string }[] | null = null,
): ConsoleIdentity {
  const ip = whoAmI?.find((i) => i.scheme === 'ip')?.id ?? null;
  return {
    digestIds: auth.filter((a) => a.scheme === 'digest').map((a) => digestIdOf(a.credential)),
    address: ip ?? addressMembersSee(connectionString),
    authIds: (whoAmI ?? []).filter((i) => i.scheme === 'sasl' || i.scheme === 'x509'),
  };
}

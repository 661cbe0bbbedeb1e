/**
 * Would the console keep READ and ADMIN on a node under a new ACL? An ACL that takes them away
 * leaves Keeper unable to show the node or change its ACL back (ZooKeeper still lets it delete
 * the node: that needs DELETE on the parent). Pure: the server says who the console is.
 *
 * ZooKeeper's rules, entry by entry (permissions of every matching entry add up):
 *  - world:anyone matches everybody;
 *  - digest:<user>:<hash> matches a session that added that user's credentials;
 *  - ip:<addr>[/bits] matches the address the member sees the session connect from;
 *  - sasl:<name> and x509:<subject DN> match the session's SASL and client-certificate ids, as
 *    ZooKeeper itself reports them (whoAmI);
 *  - auth grants the session's own authenticated ids (for the console: its digest, sasl and x509
 *    ids; with none, ZooKeeper refuses the ACL outright);
 *  - other schemes (a custom provider's) are never assumed to match.
 * A ZooKeeper super user (zookeeper.DigestAuthenticationProvider.superDigest) passes every check;
 * the console cannot know it is one, so it is never assumed.
 */
import { PERMISSION_BITS } from './acl.js';

export interface ConsoleIdentity {
  /** Digest ids ("user:base64(sha1(user:password))") of the credentials the console adds. */
  digestIds: readonly string[];
  /** The address members see the console's connection come from; null when it cannot tell. */
  address: string | null;
  /** The sasl and x509 ids ZooKeeper reported for the console's session (whoAmI); none before it answered. */
  authIds?: readonly { scheme: string; id: string }[];
}

export type ConsoleAccessVerdict = 'keeps' | 'locksOut' | 'unknown';

export interface ConsoleAccess {
  verdict: ConsoleAccessVerdict;
  /** Of read and admin, what the console would lose ('locksOut') or might lose ('unknown'). */
  missing: ('read' | 'admin')[];
  reason: string;
}

const NEEDED = [
  ['read', PERMISSION_BITS.r],
  ['admin', PERMISSION_BITS.a],
] as const;

/**
 * The permission bits the console surely has under `acl` (`granted`), and those only ip entries
 * would add when the address the members see is unknown (`undecided`).
 */
export function consolePermissionsUnder(
  acl: readonly { scheme: string; id: string; permissions: number }[],
  console: ConsoleIdentity,
): { granted: number; undecided: number } {
  let granted = 0;
  let undecided = 0;
  for (const entry of acl) {
    switch (entry.scheme) {
      case 'world':
        if (entry.id === 'anyone') granted |= entry.permissions;
        break;
      case 'digest':
        if (console.digestIds.includes(entry.id)) granted |= entry.permissions;
        break;
      case 'auth':
        if (console.digestIds.length > 0 || (console.authIds?.length ?? 0) > 0) granted |= entry.permissions;
        break;
      case 'sasl':
      case 'x509':
        if (console.authIds?.some((a) => a.scheme === entry.scheme && a.id === entry.id)) granted |= entry.permissions;
        break;
      case 'ip':
        if (console.address === null) undecided |= entry.permissions;
        else if (ipMatches(console.address, entry.id)) granted |= entry.permissions;
        break;
      default:
        break;
    }
  }
  return { granted, undecided };
}

export function consoleAccessUnder(acl: readonly { scheme: string; id: string; permissions: number }[], console: ConsoleIdentity): ConsoleAccess {
  const { granted, undecided } = consolePermissionsUnder(acl, console);
  const lost = NEEDED.filter(([, bit]) => (granted & bit) === 0);
  if (lost.length === 0) return { verdict: 'keeps', missing: [], reason: `the console keeps read and admin (${describe(console)})` };
  const missing = lost.map(([name]) => name);
  const surelyLost = lost.filter(([, bit]) => (undecided & bit) === 0).map(([name]) => name);
  const consequence = consequenceOf(missing);
  if (surelyLost.length === 0) {
    return {
      verdict: 'unknown',
      missing,
      reason: `the console may lose ${missing.join(' and ')}: only ip entries would grant ${missing.length > 1 ? 'them' : 'it'}, and the address the members see the console connect from is unknown (${describe(console)}). If it does not match, ${consequence}`,
    };
  }
  return {
    verdict: 'locksOut',
    missing,
    reason: `no entry grants ${missing.join(' and ')} to the console (${describe(console)}): ${consequence}`,
  };
}

function consequenceOf(missing: readonly string[]): string {
  const cannot = [missing.includes('read') ? 'show its data and children, or export it' : null, missing.includes('admin') ? 'change its ACL back' : null]
    .filter(Boolean)
    .join(', nor ');
  return `Keeper could not ${cannot} (it could still delete it: that needs delete permission on the parent).`;
}

function describe(console: ConsoleIdentity): string {
  const digests = console.digestIds.length > 0 ? `digest ${console.digestIds.map((d) => d.split(':')[0]).join(', ')}` : 'no digest credentials';
  const address = console.address === null ? 'address unknown' : `address ${console.address}`;
  const others = (console.authIds ?? []).map((a) => `${a.scheme}:${a.id}`);
  return [`world:anyone`, digests, ...others, address].join(', ');
}

/** ZooKeeper's IPAuthenticationProvider.matches: same family, equal in the first `bits` bits. */
export function ipMatches(address: string, aclId: string): boolean {
  const [base = '', bitsText, ...rest] = aclId.split('/');
  if (rest.length > 0) return false;
  const acl = ipBytes(base);
  const remote = ipBytes(address);
  if (!acl || !remote || acl.length !== remote.length) return false;
  const bits = bitsText === undefined ? acl.length * 8 : /^\d+$/.test(bitsText) ? Number(bitsText) : -1;
  if (bits < 0 || bits > acl.length * 8) return false;
  for (let i = 0; i < acl.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    const mask = keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
    if (((acl[i] as number) & mask) !== ((remote[i] as number) & mask)) return false;
  }
  return true;
}

/** IPv4 (4 bytes) or IPv6 (16 bytes, "::" expanded), or null. */
export function ipBytes(text: string): number[] | null {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const octets = v4.slice(1).map(Number);
    return octets.every((o) => o <= 255) ? octets : null;
  }
  if (!/^[0-9A-Fa-f:]+$/.test(text) || !text.includes(':')) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9A-Fa-f]{1,4}$/.test(g))) return null;
  return all.flatMap((g) => {
    const value = parseInt(g, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * The root's ACL as found against the one this replica's config makes (docs/operating/replicas.md,
 * "Identity and ACL"), and how both are said in a sentence. Pure.
 */
import type { AclEntry } from '../zk/mutations.js';

/** ZooKeeper's Perms.ALL. */
const ALL = 31;
/** ZooKeeper's permission bits, in the order zkCli writes them. */
const LETTERS: [string, number][] = [
  ['c', 4],
  ['d', 8],
  ['r', 1],
  ['w', 2],
  ['a', 16],
];

const key = (e: AclEntry) => `${e.scheme}:${e.id}:${e.permissions}`;

export function sameAcl(a: readonly AclEntry[], b: readonly AclEntry[]): boolean {
  const sa = a.map(key).sort();
  const sb = b.map(key).sort();
  return sa.length === sb.length && sa.every((k, i) => k === sb[i]);
}

/**
 * `same`; `identities` when the found ACL holds this secret's digest entry and otherwise only
 * x509/sasl entries with every permission (what another `replicas.identities` made); `foreign`
 * for anything else, which Keeper does not take over. `expected[0]` is the digest entry.
 */
export function rootAclChange(found: readonly AclEntry[], expected: readonly AclEntry[]): 'same' | 'identities' | 'foreign' {
  if (sameAcl(found, expected)) return 'same';
  const digest = expected[0];
  if (!digest || !found.some((e) => key(e) === key(digest))) return 'foreign';
  const others = found.filter((e) => key(e) !== key(digest));
  return others.every((e) => (e.scheme === 'x509' || e.scheme === 'sasl') && e.permissions === ALL) ? 'identities' : 'foreign';
}

/** `digest:keeper:<from the cluster secret>:cdrwa, x509:CN=keeper:cdrwa`: this secret's digest hash is not repeated in messages. */
export function describeAcl(acl: readonly AclEntry[], ownDigest?: AclEntry): string {
  if (acl.length === 0) return '(none)';
  return acl
    .map((e) => {
      const perms = LETTERS.filter(([, bit]) => (e.permissions & bit) !== 0)
        .map(([letter]) => letter)
        .join('');
      const id = ownDigest && key(e) === key(ownDigest) ? `${e.id.split(':')[0]}:<from the cluster secret>` : e.id;
      return `${e.scheme}:${id}:${perms || '(no permission)'}`;
    })
    .join(', ');
}

/**
 * What `replicas.identities` names that this replica's state session does not present, one
 * sentence per scheme ([] when it presents one listed identity of each listed scheme). Keeper
 * still gets in by the digest, so a DN written otherwise than ZooKeeper writes it would go
 * unnoticed: the replica logs these.
 */
export function identitiesNotPresented(configured: readonly string[], seen: readonly { scheme: string; id: string }[]): string[] {
  const notes: string[] = [];
  for (const scheme of ['x509', 'sasl']) {
    const listed = configured.filter((i) => i.startsWith(`${scheme}:`));
    if (listed.length === 0) continue;
    const mine = seen.filter((i) => i.scheme === scheme).map((i) => `${i.scheme}:${i.id}`);
    if (mine.some((i) => listed.includes(i))) continue;
    const seenAs = seen.map((i) => `${i.scheme}:${i.id}`).join(', ') || 'nothing';
    notes.push(
      mine.length === 0
        ? `replicas.identities lists ${listed.join(', ')}, but this replica's state session has no ${scheme} identity (ZooKeeper sees it as ${seenAs}); it gets in by the digest only`
        : `replicas.identities lists ${listed.join(', ')}, but ZooKeeper sees this replica as ${mine.join(', ')}; it gets in by the digest only (write the identity as ZooKeeper's whoami shows it)`,
    );
  }
  return notes;
}

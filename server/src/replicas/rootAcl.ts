/**
 * The root's ACL as found against the one this replica's config makes (docs/replicas.md,
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

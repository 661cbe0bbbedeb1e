/**
 * Roles by group, down to a subtree (config `auth.grants`): which groups (from the identity
 * provider, or the config's users) get which rights.
 *  - `admin`: everything.
 *  - `viewer`: read everything.
 *  - `writer`: read everything, and change znodes (create, set data, delete, import) only under
 *    the listed paths of the listed ensemble; paths are segment-exact (/app/billing never grants
 *    /app/billingx). ACLs, lock cleanup, upgrades, share links and the audit trail stay admin.
 * The server decides every request with these functions before reading its input; the web app
 * uses the same ones to offer only what the person may do.
 */
import { z } from 'zod/mini';
import { isValidPath } from './paths.js';
import { pathWithin } from './shareScope.js';

export const GRANT_ROLES = ['admin', 'viewer', 'writer'] as const;
export type GrantRole = (typeof GRANT_ROLES)[number];

const znodePath = z.string().check(
  z.maxLength(1024),
  z.refine((p) => isValidPath(p), 'must be a znode path: /a/b, no trailing /, no . or .. segments'),
);

export const grantSchema = z.discriminatedUnion('role', [
  z.strictObject({ group: z.string().check(z.minLength(1), z.maxLength(256)), role: z.literal('admin') }),
  z.strictObject({ group: z.string().check(z.minLength(1), z.maxLength(256)), role: z.literal('viewer') }),
  z.strictObject({
    group: z.string().check(z.minLength(1), z.maxLength(256)),
    role: z.literal('writer'),
    ensemble: z.string().check(z.minLength(1), z.maxLength(63)),
    paths: z.array(znodePath).check(z.minLength(1), z.maxLength(100)),
  }),
]);
export type Grant = z.infer<typeof grantSchema>;

/** Where a writer may change znodes: these subtrees of this ensemble. */
export const writeScopeSchema = z.object({ ensemble: z.string(), paths: z.array(z.string()) });
export type WriteScope = z.infer<typeof writeScopeSchema>;

/** What one person may do, as the "who am I" panel shows it and every route checks it. */
export const rightsSchema = z.object({
  /** admin: everything; viewer: read only; writer: read, and write within `write`. */
  role: z.enum(['admin', 'viewer', 'writer']),
  write: z.array(writeScopeSchema),
  /** The groups that gave these rights (empty for a token or a user given a role directly). */
  grantedBy: z.array(z.string()),
});
export type Rights = z.infer<typeof rightsSchema>;

/**
 * The rights a set of groups gives: the strongest role among the matching grants, and for a
 * writer the union of its subtrees per ensemble. Null when no grant matches: no access at all.
 */
export function rightsFromGroups(groups: readonly string[], grants: readonly Grant[]): Rights | null {
  const mine = new Set(groups);
  const matching = grants.filter((g) => mine.has(g.group));
  if (matching.length === 0) return null;
  // The groups that decide: those of the strongest role (a viewer grant adds nothing to a writer's).
  const groupsOf = (role: GrantRole) => [...new Set(matching.filter((g) => g.role === role).map((g) => g.group))];
  if (matching.some((g) => g.role === 'admin')) return { role: 'admin', write: [], grantedBy: groupsOf('admin') };
  const byEnsemble = new Map<string, Set<string>>();
  for (const g of matching) {
    if (g.role !== 'writer') continue;
    const paths = byEnsemble.get(g.ensemble) ?? new Set<string>();
    for (const p of g.paths) paths.add(p);
    byEnsemble.set(g.ensemble, paths);
  }
  const write = [...byEnsemble].map(([ensemble, paths]) => ({ ensemble, paths: minimalRoots([...paths]) }));
  const role = write.length > 0 ? 'writer' : 'viewer';
  return { role, write, grantedBy: groupsOf(role) };
}

/** Rights of a token or a user given a role directly (no groups). */
export function rightsOfRole(role: 'admin' | 'viewer'): Rights {
  return { role, write: [], grantedBy: [] };
}

/** Whether these rights let a person change the znode at `path` of `ensemble` (create, set, delete, import). */
export function mayWriteAt(rights: Rights | null | undefined, ensemble: string, path: string): boolean {
  if (!rights) return false;
  if (rights.role === 'admin') return true;
  if (rights.role !== 'writer') return false;
  return rights.write.some((scope) => scope.ensemble === ensemble && scope.paths.some((root) => pathWithin(root, path)));
}

/** Whether these rights change anything at all in this ensemble (a writer of another ensemble does not). */
export function mayWriteIn(rights: Rights | null | undefined, ensemble: string): boolean {
  if (!rights) return false;
  return rights.role === 'admin' || rights.write.some((scope) => scope.ensemble === ensemble);
}

/** For the page that refuses someone: each grant as "billing (writer of prod: /app/billing)". */
export function describeGrant(grant: Grant): string {
  if (grant.role === 'writer') return `${grant.group} (writer of ${grant.ensemble}: ${grant.paths.join(', ')})`;
  return `${grant.group} (${grant.role})`;
}

/** "writer of prod: /app/billing, /app/invoices; stage: /" for the who-am-I panel. */
export function describeRights(rights: Rights): string {
  if (rights.role === 'admin') return 'admin: read and change everything, including ACLs, locks, upgrades, share links and the audit trail';
  if (rights.role === 'viewer') return 'viewer: read everything, change nothing';
  const where = rights.write.map((s) => `${s.ensemble}: ${s.paths.join(', ')}`).join('; ');
  return `writer: read everything; change znodes only under ${where}`;
}

/** Drops paths already inside another listed path: [/a, /a/b, /c] -> [/a, /c]. */
function minimalRoots(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  return sorted.filter((p) => !sorted.some((other) => other !== p && pathWithin(other, p)));
}

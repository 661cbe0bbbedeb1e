/**
 * ACL rows as the editor holds them, checked with ZooKeeper's own rules (shared/acl.ts) before
 * anything is sent, plus the warnings that save people from locking themselves out.
 */
import { ACL_SCHEMES, checkAclId, type AclEntryInput, type AclEntryView, type AclScheme } from '@keeper/shared';

export const PERMISSIONS = [
  { letter: 'c', name: 'create', hint: 'create children' },
  { letter: 'd', name: 'delete', hint: 'delete children' },
  { letter: 'r', name: 'read', hint: 'read data and list children' },
  { letter: 'w', name: 'write', hint: 'set data' },
  { letter: 'a', name: 'admin', hint: 'change this ACL' },
] as const;

export type PermissionLetter = (typeof PERMISSIONS)[number]['letter'];

export interface AclRow {
  key: number;
  scheme: AclScheme;
  id: string;
  /** Letters in cdrwa order. */
  perms: string;
}

export const ID_PLACEHOLDER: Record<AclScheme, string> = {
  world: 'anyone',
  digest: 'user:base64(sha1(user:password))',
  ip: '10.0.0.0/8',
  auth: '(the caller’s own authenticated ids)',
  sasl: 'keeper  or  keeper@EXAMPLE.COM',
  x509: 'CN=keeper,O=Example',
};

function isScheme(s: string): s is AclScheme {
  return (ACL_SCHEMES as readonly string[]).includes(s);
}

let nextKey = 1;

export function newRow(scheme: AclScheme = 'world'): AclRow {
  return { key: nextKey++, scheme, id: scheme === 'world' ? 'anyone' : '', perms: 'r' };
}

/** Schemes this editor does not know (a custom provider's): such an ACL is shown but left to zkCli. */
export function unknownSchemes(acl: readonly AclEntryView[]): string[] {
  return [...new Set(acl.map((e) => e.scheme).filter((s) => !isScheme(s)))];
}

export function rowsFrom(acl: readonly AclEntryView[]): AclRow[] {
  // Unknown schemes (a custom provider's) are shown but cannot be edited here: the editor keeps them as they are.
  return acl.map((e) => ({ key: nextKey++, scheme: isScheme(e.scheme) ? e.scheme : 'auth', id: e.id, perms: e.perms }));
}

/** Toggles one letter, keeping the cdrwa order zkCli uses. */
export function togglePerm(perms: string, letter: PermissionLetter): string {
  const has = perms.includes(letter);
  return PERMISSIONS.map((p) => p.letter)
    .filter((l) => (l === letter ? !has : perms.includes(l)))
    .join('');
}

export interface AclCheck {
  /** Per row key: why the row cannot be saved. */
  rowErrors: Map<number, string>;
  /** Why the whole ACL cannot be saved. */
  error: string | null;
  /** Allowed, but worth a second look. */
  warnings: string[];
}

export function checkRows(rows: readonly AclRow[]): AclCheck {
  const rowErrors = new Map<number, string>();
  const seen = new Map<string, number>();
  for (const row of rows) {
    const idProblem = checkAclId(row.scheme, row.id);
    if (idProblem) rowErrors.set(row.key, idProblem);
    else if (row.perms === '') rowErrors.set(row.key, 'no permissions: this entry grants nothing (remove it instead)');
    const k = `${row.scheme}:${row.id}`;
    if (seen.has(k) && !rowErrors.has(row.key)) rowErrors.set(row.key, `${k} is listed twice: merge the permissions into one entry`);
    seen.set(k, row.key);
  }
  const error = rows.length === 0 ? 'An ACL needs at least one entry' : null;
  const warnings: string[] = [];
  if (rows.length > 0 && !rows.some((r) => r.perms.includes('a'))) {
    warnings.push('No entry has admin (a): nobody will be able to change this ACL again.');
  }
  if (rows.length > 0 && !rows.some((r) => r.perms.includes('r') && (r.scheme === 'world' || r.scheme === 'auth' || r.scheme === 'ip'))) {
    warnings.push('Only digest entries can read: the console (and this view) may lose sight of this node unless it authenticates as one of them.');
  }
  return { rowErrors, error, warnings };
}

export function toInput(rows: readonly AclRow[]): AclEntryInput[] {
  return rows.map((r) => ({ scheme: r.scheme, id: r.id, perms: r.perms }));
}

export function sameAcl(rows: readonly AclRow[], acl: readonly AclEntryView[]): boolean {
  return rows.length === acl.length && rows.every((r, i) => r.scheme === acl[i]?.scheme && r.id === acl[i]?.id && r.perms === acl[i]?.perms);
}

/**
 * The server's 409 ACL_LOCKS_OUT message as the dialog shows it: the heading already says the
 * console loses access to this path, and the dialog's own field replaces the API's "confirm" hint.
 */
export function lockoutReason(message: string, path: string): string {
  const lead = [`this ACL locks the console out of ${path}: `, `this ACL may lock the console out of ${path}: `].find((l) => message.startsWith(l));
  const body = (lead ? message.slice(lead.length) : message).replace(/ To apply it anyway, send "confirm" equal to the path.*$/s, '');
  return body.charAt(0).toUpperCase() + body.slice(1);
}

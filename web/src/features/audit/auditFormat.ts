/** How audit entries read: short change fingerprints, action words, outcome tones, the filter. */
import type { AuditEntry, DataFingerprint } from '@keeper/shared';
import { formatBytes } from '../../lib/bytes';

import type { Tone } from '../../ui/tone';

export type { Tone };

export const OUTCOME_TONE: Record<AuditEntry['outcome'], Tone> = { ok: 'live', refused: 'degraded', failed: 'lost' };

const ACTION_WORDS: Record<string, string> = {
  login: 'sign in',
  logout: 'sign out',
  create: 'create',
  setData: 'set data',
  delete: 'delete',
  deleteRecursive: 'delete subtree',
  setAcl: 'set ACL',
  import: 'import',
  cancelJob: 'cancel job',
  'shareLink.create': 'share link made',
  'shareLink.use': 'share link opened',
  'shareLink.revoke': 'share link revoked',
};

/** "delete subtree · start", "import · end", "set data". */
export function actionLabel(entry: Pick<AuditEntry, 'action' | 'details'>): string {
  const word = ACTION_WORDS[entry.action] ?? entry.action;
  // The phase of a job (start, end) or how someone signed in (password, token, url).
  const qualifier = entry.details?.phase ?? (entry.action === 'login' ? entry.details?.method : undefined);
  return typeof qualifier === 'string' ? `${word} · ${qualifier}` : word;
}

/** "v3 · 116 B · 1a2b3c4": enough to tell values apart without the data. */
export function fingerprintShort(fp: DataFingerprint): string {
  return `v${fp.version} · ${formatBytes(fp.size)} · ${fp.sha256.slice(0, 7)}`;
}

/**
 * The change an entry records: before → after. `null` on a side means "none" (created / deleted);
 * the whole thing is null when the entry is not about a value.
 */
export function changeOf(entry: Pick<AuditEntry, 'before' | 'after'>): { before: string | null; after: string | null } | null {
  // Neither side is a value (sign-ins, share links, an import's end): nothing to show.
  if (!entry.before && !entry.after) return null;
  return {
    before: entry.before ? fingerprintShort(entry.before) : null,
    after: entry.after ? fingerprintShort(entry.after) : null,
  };
}

/**
 * The outcome word and tone. A job stopped on request is recorded as failed (the trail knows
 * ok/refused/failed only); its details say cancelled, and so does this.
 */
export function outcomeOf(entry: Pick<AuditEntry, 'outcome' | 'details'>): { word: string; tone: Tone } {
  if (entry.details?.phase === 'end' && entry.details.state === 'cancelled') return { word: 'cancelled', tone: 'degraded' };
  return { word: entry.outcome, tone: OUTCOME_TONE[entry.outcome] };
}

function count(n: unknown): string | null {
  return typeof n === 'number' ? n.toLocaleString('en-US') : null;
}

/** The one line worth reading under an entry: its error, how far a job got, or a note. */
export function entryNote(entry: AuditEntry): string | null {
  if (entry.error) return `${entry.error.code}: ${entry.error.message}`;
  const d = entry.details;
  if (d?.phase === 'end' && d.state !== 'done') {
    const done = count(d.done);
    const total = count(d.total);
    const left = count(d.remainingTotal);
    const progress = done !== null && total !== null ? `stopped after ${done} of ${total}` : 'stopped';
    return `${progress}${left !== null ? `; ${left} remain` : ''}`;
  }
  const acl = aclChange(d);
  if (acl) return acl;
  if (entry.note) return entry.note;
  return null;
}

function aclText(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  return value
    .map((e) =>
      typeof e === 'object' && e !== null
        ? `${String((e as { scheme?: unknown }).scheme)}:${String((e as { id?: unknown }).id)} ${String((e as { perms?: unknown }).perms ?? '')}`.trim()
        : '?',
    )
    .join(', ');
}

/** "world:anyone cdrwa → world:anyone r, ip:10.0.0.0/8 rw" for setAcl entries. */
function aclChange(details: AuditEntry['details']): string | null {
  const before = aclText(details?.aclBefore);
  const after = aclText(details?.aclAfter);
  return before !== null && after !== null ? `ACL ${before} → ${after}` : null;
}

function haystack(entry: AuditEntry): string {
  return [
    entry.actor.name,
    entry.actor.role ?? '',
    entry.actor.via,
    entry.action,
    actionLabel(entry),
    entry.outcome,
    entry.ensemble ?? '',
    entry.path ?? '',
    entry.error?.code ?? '',
    entry.error?.message ?? '',
    entry.note ?? '',
    entry.remoteAddress ?? '',
    entry.replica?.name ?? '',
    entry.details ? JSON.stringify(entry.details) : '',
  ]
    .join('\n')
    .toLowerCase();
}

/** Every word of the query must appear somewhere in the entry (who, action, path, error, ids...). */
export function matchesFilter(entry: AuditEntry, query: string): boolean {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return true;
  const text = haystack(entry);
  return words.every((w) => text.includes(w));
}

/** A share link's id when the entry is about one (made, opened, revoked). */
export function linkIdOf(entry: AuditEntry): string | null {
  const id = entry.details?.linkId;
  return typeof id === 'string' ? id : null;
}

/**
 * A long path with its middle left out ("/e2e/9e7a…/workers"): the first segment and the end
 * say where it is; the full path is in the title.
 */
export function shortenPath(path: string, max: number): string {
  if (path.length <= max) return path;
  const parts = path.split('/');
  const last = parts[parts.length - 1] ?? '';
  const first = parts.length > 2 ? `/${parts[1]}` : '';
  const room = max - last.length - 2;
  if (room < 4) return `…${path.slice(path.length - max + 1)}`;
  // Keep as much of the head as fits, then the node's own name.
  const head = `${first}/${parts.slice(2, -1).join('/')}`;
  return `${head.slice(0, room)}…/${last}`;
}

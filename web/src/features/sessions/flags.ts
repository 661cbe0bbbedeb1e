import type { EnsembleSession } from '@keeper/shared';

export type SessionFlag = EnsembleSession['flags'][number];

/** Short badge words; the server's message says the rest. */
export const FLAG_LABEL: Record<SessionFlag['kind'], string> = {
  'long-timeout': 'long timeout',
  'silent-near-timeout': 'silent',
  'no-connection': 'no connection',
  'request-herd': 'herd',
};

/**
 * Flags the page's banner already explains (the request herd's alert): the badge alone on each
 * row, with its sentence as the badge's title, not the same line under thirty rows.
 */
export const EXPLAINED_BY_BANNER: ReadonlySet<SessionFlag['kind']> = new Set(['request-herd']);

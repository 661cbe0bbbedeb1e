import type { EnsembleSession } from '@keeper/shared';

export type SessionFlag = EnsembleSession['flags'][number];

/** Short badge words; the server's message says the rest. */
export const FLAG_LABEL: Record<SessionFlag['kind'], string> = {
  'long-timeout': 'long timeout',
  'silent-near-timeout': 'silent',
  'no-connection': 'no connection',
  'request-herd': 'herd',
};

/**
 * What one audit entry may hold. Callers record what a request said (a refused request's raw
 * path, a failed sign-in's user name), so a caller could otherwise write megabytes per request:
 * every text field is cut to a bound and the entry says which fields were cut (`truncated`).
 */
import type { AuditEntry } from '@keeper/shared';

export type AuditInput = Omit<AuditEntry, 'seq' | 'at'>;

/** Characters kept per field; `details` is bounded by its JSON size. */
export const AUDIT_FIELD_LIMITS = {
  actorName: 128,
  actorVia: 16,
  ensemble: 128,
  path: 1_024,
  errorCode: 64,
  errorMessage: 1_024,
  note: 1_024,
  remoteAddress: 64,
  details: 8_192,
} as const;

function cut(value: string, max: number, field: string, truncated: string[]): string {
  if (value.length <= max) return value;
  truncated.push(field);
  return `${value.slice(0, max)}…`;
}

export function boundAuditInput(input: AuditInput): AuditInput {
  const truncated: string[] = [];
  const L = AUDIT_FIELD_LIMITS;
  const out: AuditInput = {
    ...input,
    actor: {
      name: cut(String(input.actor.name), L.actorName, 'actor.name', truncated),
      role: input.actor.role,
      via: cut(String(input.actor.via), L.actorVia, 'actor.via', truncated),
    },
  };
  if (input.ensemble !== undefined) out.ensemble = cut(input.ensemble, L.ensemble, 'ensemble', truncated);
  if (input.path !== undefined) out.path = cut(input.path, L.path, 'path', truncated);
  if (input.error !== undefined)
    out.error = {
      code: cut(input.error.code, L.errorCode, 'error.code', truncated),
      message: cut(input.error.message, L.errorMessage, 'error.message', truncated),
    };
  if (input.note !== undefined) out.note = cut(input.note, L.note, 'note', truncated);
  if (input.remoteAddress !== undefined) out.remoteAddress = cut(input.remoteAddress, L.remoteAddress, 'remoteAddress', truncated);
  if (input.details !== undefined) {
    const size = JSON.stringify(input.details).length;
    if (size > L.details) {
      truncated.push('details');
      out.details = { omitted: `${size} characters of details, over the ${L.details} an entry keeps` };
    }
  }
  if (truncated.length > 0) out.truncated = [...(input.truncated ?? []), ...truncated];
  return out;
}

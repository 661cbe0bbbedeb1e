/**
 * Session ids arrive as "0x100002f75570004" (4lw), as decimal strings or as JSON numbers
 * beyond 2^53 (AdminServer). One normalised form, as ZooKeeper prints them: "0x" + lower hex.
 */
import { formatSessionId } from '../../sessionId.js';

export function normalizeSessionId(raw: string | number | bigint): string | null {
  try {
    if (typeof raw === 'bigint') return formatSessionId(raw);
    if (typeof raw === 'number') return Number.isSafeInteger(raw) ? formatSessionId(BigInt(raw)) : null;
    const text = raw.trim().toLowerCase();
    if (/^0x[0-9a-f]{1,16}$/.test(text)) return formatSessionId(BigInt(text));
    if (/^-?\d{1,20}$/.test(text)) return formatSessionId(BigInt(text));
    return null;
  } catch {
    return null;
  }
}

/**
 * Zxids as the members print them ("0x10000000d"): the high 32 bits are the leader's epoch,
 * the low 32 a counter of transactions in that epoch. Kept as normalised hex strings on the
 * wire and as bigint for comparisons (they are 64-bit: a number would lose the counter).
 */
import { formatZxid, zxidCounter, zxidEpoch } from '../sessionId.js';

export interface ZxidParts {
  value: bigint;
  epoch: number;
  counter: number;
}

/** "0x10000000d" / "10000000d" / "4294967309" -> bigint; null when it is not a zxid. */
export function parseZxid(text: string | number | null | undefined): bigint | null {
  if (text === null || text === undefined) return null;
  if (typeof text === 'number') return Number.isSafeInteger(text) && text >= 0 ? BigInt(text) : null;
  const trimmed = text.trim().toLowerCase();
  if (/^0x[0-9a-f]{1,16}$/.test(trimmed)) return BigInt(trimmed);
  if (/^\d{1,20}$/.test(trimmed)) {
    const value = BigInt(trimmed);
    return value < 2n ** 64n ? value : null;
  }
  return null;
}

/** The normalised hex form ("0x10000000d"), or null. */
export function normalizeZxid(text: string | number | null | undefined): string | null {
  const value = parseZxid(text);
  return value === null ? null : formatZxid(value);
}

export function zxidParts(text: string | null | undefined): ZxidParts | null {
  const value = parseZxid(text);
  return value === null ? null : { value, epoch: zxidEpoch(value), counter: zxidCounter(value) };
}

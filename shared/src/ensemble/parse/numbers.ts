/** Lenient number reading shared by the parsers: ZooKeeper versions differ in what they print. */

/** A finite number from "12", "1.2857", " 3 "; null for anything else (empty, "NaN", "-"). */
export function toNumber(text: string | number | null | undefined): number | null {
  if (typeof text === 'number') return Number.isFinite(text) ? text : null;
  if (text === null || text === undefined) return null;
  const trimmed = text.trim();
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/** An integer from decimal text ("12") or hex with 0x ("0x1f"); null otherwise. */
export function toInteger(text: string | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const trimmed = text.trim();
  if (/^0x[0-9a-f]+$/i.test(trimmed)) return Number.parseInt(trimmed.slice(2), 16);
  if (/^-?\d+$/.test(trimmed)) return Number(trimmed);
  return null;
}

/**
 * Zxids and session ids are shown in hex, as ZooKeeper prints them. The wire sends them as
 * strings; accept hex ("0x1a") or decimal ("26") so the UI never shows a mix of both.
 */
export function toHexId(value: string): string {
  const v = value.trim();
  if (/^0x[0-9a-f]+$/i.test(v))
    return `0x${v
      .slice(2)
      .toLowerCase()
      .replace(/^0+(?=.)/, '')}`;
  if (/^-?\d+$/.test(v)) return `0x${BigInt.asUintN(64, BigInt(v)).toString(16)}`;
  return v;
}

/** Epoch (high 32 bits) and counter (low 32 bits) of a zxid, for a hover hint; null if not a number. */
export function zxidParts(value: string): { epoch: number; counter: number } | null {
  const hex = toHexId(value);
  if (!/^0x[0-9a-f]+$/.test(hex)) return null;
  const n = BigInt(hex);
  return { epoch: Number(n >> 32n), counter: Number(n & 0xffffffffn) };
}

/** "0x1000a3b52c40001" -> "0x1000a3b…" for tight places; the full id goes in a title. */
export function shortId(id: string, keep = 9): string {
  return id.length > keep + 1 ? `${id.slice(0, keep)}…` : id;
}

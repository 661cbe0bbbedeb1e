/**
 * How a znode's bytes are shown: UTF-8 text, JSON, or binary (base64, with hex in the UI).
 * Decided once here so the API and the browser never disagree about what a value is.
 */

export type DataEncoding = 'utf8' | 'json' | 'base64';

export interface EncodedData {
  encoding: DataEncoding;
  /** Text for utf8/json, base64 for binary; possibly truncated. */
  value: string;
  /** The real size in bytes, whatever was sent. */
  size: number;
  truncated: boolean;
}

/** Bytes sent to a browser or API caller before truncation; znodes may hold up to ~1 MB. */
export const DEFAULT_DATA_PREVIEW_BYTES = 64 * 1024;

/**
 * Strict UTF-8, so invalid bytes mean binary. When the value was cut at the preview limit,
 * stream mode holds back only a genuinely incomplete last character instead of calling the
 * whole value binary.
 */
function decodeUtf8(bytes: Uint8Array, truncated: boolean): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
  } catch {
    return null;
  }
}

// Control characters other than tab, newline and carriage return mean "not text".
function looksLikeText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
    if (c === 0x7f) return false;
  }
  return true;
}

function looksLikeJson(text: string): boolean {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function fromBase64(value: string): Uint8Array {
  const binary = atob(value);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function encodeZnodeData(bytes: Uint8Array | null, limit = DEFAULT_DATA_PREVIEW_BYTES): EncodedData {
  const all = bytes ?? new Uint8Array(0);
  const truncated = all.length > limit;
  const shown = truncated ? all.subarray(0, limit) : all;
  const text = decodeUtf8(shown, truncated);
  if (text !== null && looksLikeText(text)) {
    // Only a complete value can be recognised as JSON: a truncated one would not parse.
    const encoding: DataEncoding = !truncated && looksLikeJson(text) ? 'json' : 'utf8';
    return { encoding, value: text, size: all.length, truncated };
  }
  return { encoding: 'base64', value: toBase64(shown), size: all.length, truncated };
}

/** Hex dump lines ("00000000  7b 22 61 ...  {"a...") for the binary viewer. */
export function hexDump(bytes: Uint8Array, width = 16): string[] {
  const lines: string[] = [];
  for (let off = 0; off < bytes.length; off += width) {
    const row = bytes.subarray(off, off + width);
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex.padEnd(width * 3 - 1)}  ${ascii}`);
  }
  return lines;
}

/**
 * The data editor's rules, without React: which format a value opens in, converting between text,
 * JSON and base64 without losing a byte, what a save sends, and whether anything changed at all.
 */
import { fromBase64, MAX_ZNODE_DATA_BYTES, toBase64, type EncodedData, type InputEncoding } from '@keeper/shared';
import { formatBytes, formatCount } from '../../../lib/bytes';
import { checkJson } from './jsonCheck';

export type EditorFormat = 'text' | 'json' | 'base64';

export const FORMAT_LABELS: Record<EditorFormat, string> = { text: 'Text', json: 'JSON', base64: 'Base64' };

export function initialFormat(data: EncodedData): EditorFormat {
  switch (data.encoding) {
    case 'json':
      return 'json';
    case 'utf8':
      return 'text';
    case 'base64':
      return 'base64';
    default: {
      const never: never = data.encoding;
      return never;
    }
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 as people paste it: line breaks and spaces are ignored. */
export function compactBase64(text: string): string {
  return text.replace(/\s+/g, '');
}

/** Null when `text` is base64 (whitespace ignored), else why not. */
export function checkBase64(text: string): string | null {
  const compact = compactBase64(text);
  if (BASE64.test(compact)) return null;
  const bad = /[^A-Za-z0-9+/=]/.exec(compact);
  if (bad) return `"${bad[0]}" is not a base64 character (A–Z, a–z, 0–9, +, /, = at the end)`;
  return `base64 comes in groups of 4 characters; this has ${formatCount(compact.length)} (padding "=" missing or misplaced?)`;
}

function utf8Bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function decodeStrictUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

export type Converted = { ok: true; text: string } | { ok: false; reason: string };

/** The same bytes shown in another format; refuses when they cannot be (binary as text). */
export function convertFormat(from: EditorFormat, to: EditorFormat, text: string): Converted {
  if (from === to) return { ok: true, text };
  if (to === 'base64') {
    return from === 'base64' ? { ok: true, text } : { ok: true, text: toBase64(utf8Bytes(text)) };
  }
  if (from !== 'base64') return { ok: true, text };
  const problem = checkBase64(text);
  if (problem) return { ok: false, reason: `Fix the base64 first: ${problem}` };
  const decoded = decodeStrictUtf8(fromBase64(compactBase64(text)));
  if (decoded === null) return { ok: false, reason: 'These bytes are not UTF-8 text: keep editing them as base64' };
  return { ok: true, text: decoded };
}

export type SavePayload = { ok: true; data: string; encoding: InputEncoding; bytes: number } | { ok: false; reason: string };

/** What a save sends (PUT {data, encoding, version}), or why it cannot be sent. */
export function payloadFor(format: EditorFormat, text: string): SavePayload {
  let payload: SavePayload;
  if (format === 'base64') {
    const problem = checkBase64(text);
    if (problem) return { ok: false, reason: problem };
    const compact = compactBase64(text);
    payload = { ok: true, data: compact, encoding: 'base64', bytes: fromBase64(compact).length };
  } else {
    if (format === 'json') {
      const problem = checkJson(text);
      if (problem)
        return { ok: false, reason: `Not valid JSON (line ${problem.line}, column ${problem.column}): fix it, or switch to Text to save it as it is` };
    }
    payload = { ok: true, data: text, encoding: 'utf8', bytes: utf8Bytes(text).length };
  }
  if (payload.bytes > MAX_ZNODE_DATA_BYTES) {
    return { ok: false, reason: `${formatBytes(payload.bytes)} is more than a znode holds (${formatBytes(MAX_ZNODE_DATA_BYTES)}, ZooKeeper's jute.maxbuffer)` };
  }
  return payload;
}

/** The bytes of a value as the server sent it (complete values only). */
export function bytesOf(data: EncodedData): Uint8Array {
  return data.encoding === 'base64' ? fromBase64(data.value) : utf8Bytes(data.value);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** True when saving would write exactly the bytes already there (nothing to save). */
export function isUnchanged(original: EncodedData, format: EditorFormat, text: string): boolean {
  if (original.truncated) return false;
  if (format === 'base64') {
    if (checkBase64(text) !== null) return false;
    return sameBytes(bytesOf(original), fromBase64(compactBase64(text)));
  }
  return sameBytes(bytesOf(original), utf8Bytes(text));
}

/** Text for the editor (and the conflict view) from a value as the server sent it. */
export function textFor(data: EncodedData, format: EditorFormat): string {
  if (format === 'base64') return data.encoding === 'base64' ? data.value : toBase64(utf8Bytes(data.value));
  if (data.encoding !== 'base64') return data.value;
  return decodeStrictUtf8(fromBase64(data.value)) ?? data.value;
}

/** Lines in the text, for the gutter. */
export function countLines(text: string): number {
  let lines = 1;
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 0x0a) lines++;
  return lines;
}

/** Replaces the selection with two spaces, as editors do for Tab. */
export function insertIndent(text: string, start: number, end: number): { text: string; caret: number } {
  return { text: `${text.slice(0, start)}  ${text.slice(end)}`, caret: start + 2 };
}

/** The offset where a 1-based line starts, for "go to the error". */
export function offsetOfLine(text: string, line: number): number {
  let current = 1;
  for (let k = 0; k < text.length; k++) {
    if (current === line) return k;
    if (text.charCodeAt(k) === 0x0a) current++;
  }
  return text.length;
}

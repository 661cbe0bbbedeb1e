/**
 * How the data viewer shows a znode's bytes. The server already decided text, JSON or binary
 * (shared/znodeData.ts); this picks the views each kind offers and renders them.
 */
import { fromBase64, hexDump, type EncodedData } from '@keeper/shared';
import { formatBytes } from '../../lib/bytes';

export type DataViewMode = 'json' | 'text' | 'hex' | 'base64';

export const VIEW_LABELS: Record<DataViewMode, string> = { json: 'JSON', text: 'Text', hex: 'Hex', base64: 'Base64' };

/** The first mode is the default. */
export function viewModesFor(data: EncodedData): DataViewMode[] {
  switch (data.encoding) {
    case 'json':
      return ['json', 'text', 'hex'];
    case 'utf8':
      return ['text', 'hex'];
    case 'base64':
      return ['hex', 'base64'];
    default: {
      const never: never = data.encoding;
      return never;
    }
  }
}

/** The operator's chosen mode if this data offers it (it may have changed from JSON to binary), else the default. */
export function pickMode(data: EncodedData, chosen: DataViewMode | null): DataViewMode {
  const modes = viewModesFor(data);
  return chosen !== null && modes.includes(chosen) ? chosen : (modes[0] ?? 'text');
}

export function dataBytes(data: EncodedData): Uint8Array {
  return data.encoding === 'base64' ? fromBase64(data.value) : new TextEncoder().encode(data.value);
}

export function renderData(data: EncodedData, mode: DataViewMode): string {
  switch (mode) {
    case 'json':
      try {
        return JSON.stringify(JSON.parse(data.value), null, 2);
      } catch {
        return data.value;
      }
    case 'text':
      return data.encoding === 'base64' ? new TextDecoder().decode(dataBytes(data)) : data.value;
    case 'hex':
      return hexDump(dataBytes(data)).join('\n');
    case 'base64':
      return data.encoding === 'base64' ? data.value : btoaUtf8(data.value);
    default: {
      const never: never = mode;
      return never;
    }
  }
}

function btoaUtf8(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** "showing first 64 KiB of 812 KiB", or null when everything was sent. */
export function truncationNotice(data: EncodedData): string | null {
  if (!data.truncated) return null;
  return `showing first ${formatBytes(dataBytes(data).length)} of ${formatBytes(data.size)}`;
}

export type JsonToken = { kind: 'key' | 'string' | 'number' | 'literal' | 'punct' | 'space'; text: string };

const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}[\],:])|(\s+)|(.)/gs;

/** Splits pretty-printed JSON into colorable tokens; the texts concatenate back to the input. */
export function tokenizeJson(text: string): JsonToken[] {
  const out: JsonToken[] = [];
  for (const m of text.matchAll(JSON_TOKEN)) {
    const [, str, colon, num, lit, punct, space, other] = m;
    if (str !== undefined) {
      out.push({ kind: colon !== undefined ? 'key' : 'string', text: str });
      if (colon !== undefined) out.push({ kind: 'punct', text: colon });
    } else if (num !== undefined) out.push({ kind: 'number', text: num });
    else if (lit !== undefined) out.push({ kind: 'literal', text: lit });
    else if (punct !== undefined) out.push({ kind: 'punct', text: punct });
    else if (space !== undefined) out.push({ kind: 'space', text: space });
    else if (other !== undefined) out.push({ kind: 'punct', text: other });
  }
  return out;
}

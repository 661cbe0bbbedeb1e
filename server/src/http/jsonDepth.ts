/**
 * How deep a JSON text nests, read from its bytes before anything parses it. A 10 MB body of
 * nested arrays sent to the import took 16.6 s to be refused (parsed whole, then walked by the
 * schema) and stalled an admin's request meanwhile; counted here it is refused in milliseconds.
 * Brackets inside strings do not count (escapes skipped); the text need not be valid JSON (the
 * parser says why it is not).
 */

/** Deeper than any body Keeper takes: an export nests 5 levels (the document, its nodes, a node, its ACL, an entry). */
export const MAX_JSON_DEPTH = 32;

/** The first depth past `max` reached in `bytes` (UTF-8 JSON), or null when it stays within. */
export function depthPast(bytes: Uint8Array, max: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash: the next byte is escaped
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      depth++;
      if (depth > max) return depth;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return null;
}

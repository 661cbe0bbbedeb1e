/**
 * JSON.parse that keeps big integers. The AdminServer prints session ids and zxids as JSON
 * numbers (`"session_id" : 216172985949683712`), beyond 2^53, where JSON.parse silently
 * rounds them to another session's id. Integer literals of 16+ digits outside strings are
 * turned into strings first; everything else is parsed as usual.
 */
export function parseJsonLossless(text: string): unknown {
  let out = '';
  let inString = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (ch === '"') inString = false;
      i++;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      i++;
      continue;
    }
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      const match = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(i, i + 400));
      const literal = match?.[0] ?? ch;
      const isBigInteger = match !== null && match[1] === undefined && match[2] === undefined && literal.replace('-', '').length >= 16;
      out += isBigInteger ? `"${literal}"` : literal;
      i += literal.length;
      continue;
    }
    out += ch;
    i++;
  }
  return JSON.parse(out);
}

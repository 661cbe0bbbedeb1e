/**
 * Characters that change how a name reads without showing themselves: bidi overrides and
 * isolates (`abc\u202Egpj.exe` reads "abcexe.jpg"), zero-width and other format characters,
 * controls, line separators, and blank look-alikes of letters and spaces. Wherever a znode name
 * or path is shown, these are written out as visible `\u202E` marks, so what an operator reads is
 * what is there. Copying a path still copies the real characters.
 */

// \p{Cc} controls, \p{Cf} format (bidi marks, zero-width, soft hyphen, tags...), \p{Zl}\p{Zp}
// line and paragraph separators, other spaces than U+0020, and Hangul fillers (blank letters).
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

/** `\u202E`, or `\u{E0041}` beyond the BMP: what is shown in place of a hidden character. */
export function escapeMark(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

export function hasHiddenChars(text: string): boolean {
  return HIDDEN.test(text);
}

/** The text with every hidden character written as its escape mark. */
export function escapeHiddenChars(text: string): string {
  return text.replace(HIDDEN_ALL, escapeMark);
}

export interface TextPart {
  text: string;
  /** True for an escape mark standing for a hidden character. */
  escaped: boolean;
}

/** The text cut into plain runs and escape marks, for showing the marks distinctly. */
export function splitHiddenChars(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(HIDDEN_ALL)) {
    const at = match.index;
    if (at > last) parts.push({ text: text.slice(last, at), escaped: false });
    parts.push({ text: escapeMark(match[0]), escaped: true });
    last = at + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), escaped: false });
  return parts;
}

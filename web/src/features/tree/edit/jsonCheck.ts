/**
 * Where JSON is broken, as a line and column an operator can jump to. Browsers' JSON.parse
 * messages differ and often give no position at all, so a small strict parser finds the first
 * problem itself (only after JSON.parse has already said there is one).
 */

export interface JsonProblem {
  message: string;
  /** 1-based, like editors count. */
  line: number;
  column: number;
  offset: number;
}

class Problem extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const MAX_DEPTH = 2_000;

function describe(ch: string | undefined): string {
  if (ch === undefined) return 'end of input';
  if (ch === '\n') return 'a line break';
  if (ch === "'") return `"'" (JSON strings use double quotes)`;
  if (ch === '"') return 'a string';
  return `"${ch}"`;
}

/** The first problem in `text` as JSON, by offset; null when it is valid. */
export function locateJsonError(text: string): { message: string; offset: number } | null {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const fail = (message: string, at = i): never => {
    throw new Problem(message, at);
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= n) fail('Unterminated string: a closing " is missing');
      const c = text[i];
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('Invalid \\u escape: it takes four hex digits');
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail(`Invalid escape \\${e ?? ''} in a string`);
        i += 2;
        continue;
      }
      if (c !== undefined && c.charCodeAt(0) < 0x20)
        fail(c === '\n' ? 'Line break inside a string: close the string or write \\n' : 'Control character inside a string: escape it');
      i++;
    }
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) fail('Nested too deeply to check');
    ws();
    const c = text[i];
    if (c === '{') return object(depth);
    if (c === '[') return array(depth);
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m || m[0] === '-') fail('Invalid number');
      i += m![0].length;
      if (i < n && /[0-9.eE]/.test(text[i] ?? '')) fail('Invalid number (leading zeros and a trailing "." are not JSON)');
      return;
    }
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return;
      }
    }
    if (c === '}' || c === ']') fail(`Unexpected ${describe(c)}: a value is missing`);
    fail(`Unexpected ${describe(c)}: expected a value`);
  };
  const object = (depth: number) => {
    i++;
    ws();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] !== '"')
        fail(text[i] === '}' ? 'Trailing comma: remove the last ","' : `Expected a property name in double quotes, found ${describe(text[i])}`);
      string();
      ws();
      if (text[i] !== ':') fail(`Expected ":" after the property name, found ${describe(text[i])}`);
      i++;
      value(depth + 1);
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail(`Expected "," or "}" after a property value, found ${describe(text[i])}`);
    }
  };
  const array = (depth: number) => {
    i++;
    ws();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] === ']') fail('Trailing comma: remove the last ","');
      value(depth + 1);
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail(`Expected "," or "]" after an array element, found ${describe(text[i])}`);
    }
  };
  try {
    value(0);
    ws();
    if (i < n) fail(`Unexpected ${describe(text[i])} after the end of the JSON value`);
    return null;
  } catch (e) {
    if (e instanceof Problem) return { message: e.message, offset: e.offset };
    throw e;
  }
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let k = 0; k < end; k++) {
    if (text.charCodeAt(k) === 0x0a) {
      line++;
      lineStart = k + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** Null when `text` is JSON; else the first problem with its line and column. */
export function checkJson(text: string): JsonProblem | null {
  if (text.trim() === '') return { message: 'Empty: JSON needs a value (use Text to save nothing)', line: 1, column: 1, offset: 0 };
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    const found = locateJsonError(text);
    if (found) {
      const at = lineColumn(text, found.offset);
      // The classic: a missing comma is reported where the next line begins; say where it belongs.
      const lineStartsHere = text.slice(found.offset - at.column + 1, found.offset).trim() === '';
      const hint = found.message.startsWith('Expected ","') && lineStartsHere && at.line > 1 ? ` (is a "," missing at the end of line ${at.line - 1}?)` : '';
      return { message: found.message + hint, offset: found.offset, ...at };
    }
    // The two parsers disagree (should not happen): trust JSON.parse and say what it said.
    const m = /position (\d+)/.exec(String((e as Error).message));
    const offset = m ? Number(m[1]) : 0;
    return { message: (e as Error).message, offset, ...lineColumn(text, offset) };
  }
}

/** Two-space indented JSON, or null when the text is not JSON. */
export function prettyJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return null;
  }
}

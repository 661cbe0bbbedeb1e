/**
 * Which lines differ between two values, for the conflict view's two columns: a longest common
 * subsequence of lines, so an inserted line does not mark everything after it as changed. Past a
 * size where that costs too much, lines are compared position by position.
 */

export interface DiffLine {
  text: string;
  /** Not in the other value (at this place). */
  changed: boolean;
}

export interface SideBySide {
  left: DiffLine[];
  right: DiffLine[];
  /** Lines only on the left / only on the right. */
  removed: number;
  added: number;
  /** True when the LCS was skipped for size: changes are by position. */
  approximate: boolean;
}

const MAX_CELLS = 4_000_000;

export function splitLines(text: string): string[] {
  return text.split('\n');
}

export function sideBySide(leftText: string, rightText: string): SideBySide {
  const a = splitLines(leftText);
  const b = splitLines(rightText);
  // Common head and tail cost nothing to match and keep the table small.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const inA = new Array<boolean>(am.length).fill(false);
  const inB = new Array<boolean>(bm.length).fill(false);
  let approximate = false;
  if (am.length * bm.length <= MAX_CELLS) {
    // lengths[i][j]: LCS of am[i..] and bm[j..], one flat array.
    const w = bm.length + 1;
    const lengths = new Uint32Array((am.length + 1) * w);
    for (let i = am.length - 1; i >= 0; i--) {
      for (let j = bm.length - 1; j >= 0; j--) {
        lengths[i * w + j] = am[i] === bm[j] ? (lengths[(i + 1) * w + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * w + j] ?? 0, lengths[i * w + j + 1] ?? 0);
      }
    }
    let i = 0;
    let j = 0;
    while (i < am.length && j < bm.length) {
      if (am[i] === bm[j]) {
        inA[i++] = true;
        inB[j++] = true;
      } else if ((lengths[(i + 1) * w + j] ?? 0) >= (lengths[i * w + j + 1] ?? 0)) i++;
      else j++;
    }
  } else {
    approximate = true;
    for (let k = 0; k < Math.min(am.length, bm.length); k++) {
      if (am[k] === bm[k]) inA[k] = inB[k] = true;
    }
  }
  const side = (lines: string[], middle: boolean[]): DiffLine[] =>
    lines.map((text, k) => ({ text, changed: k >= head && k < lines.length - tail ? !middle[k - head] : false }));
  const left = side(a, inA);
  const right = side(b, inB);
  return {
    left,
    right,
    removed: left.filter((l) => l.changed).length,
    added: right.filter((l) => l.changed).length,
    approximate,
  };
}

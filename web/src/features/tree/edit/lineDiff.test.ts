import { describe, expect, it } from 'vitest';
import { sideBySide } from './lineDiff';

const changed = (lines: { changed: boolean }[]) => lines.flatMap((l, i) => (l.changed ? [i] : []));

describe('sideBySide', () => {
  it('marks nothing for equal values', () => {
    const d = sideBySide('a\nb', 'a\nb');
    expect(d.added + d.removed).toBe(0);
  });

  it('an inserted line changes only that line', () => {
    const d = sideBySide('a\nb\nc', 'a\nx\nb\nc');
    expect(changed(d.left)).toEqual([]);
    expect(changed(d.right)).toEqual([1]);
    expect(d).toMatchObject({ added: 1, removed: 0, approximate: false });
  });

  it('a changed line shows on both sides', () => {
    const d = sideBySide('{\n  "replicas": 3,\n  "region": "eu"\n}', '{\n  "replicas": 5,\n  "region": "eu"\n}');
    expect(changed(d.left)).toEqual([1]);
    expect(changed(d.right)).toEqual([1]);
  });

  it('falls back to positions for huge values', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 3000 }, (_, i) => (i === 5 ? 'x' : `b${i}`)).join('\n');
    const d = sideBySide(a, b);
    expect(d.approximate).toBe(true);
    expect(d.added).toBe(3000);
  });
});

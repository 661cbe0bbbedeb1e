import { describe, expect, it } from 'vitest';
import { longestGap, typicalGap } from './writeGaps.js';

describe('longestGap', () => {
  it('finds the longest gap between acks inside the window', () => {
    expect(longestGap([100, 110, 120, 400, 410, 420], 100, 420)).toBe(280);
  });

  it('counts a gap that ends in the window in full, from the ack before the window', () => {
    // The last ack before the window is at 100, the next at 600: a client waited 500 ms.
    expect(longestGap([100, 600, 610], 300, 605)).toBe(500);
  });

  it('charges a gap that ends after the window only up to its end (the next window has it in full)', () => {
    // The window ends inside a gap that closes at 900: 90 ms of it fall in the window.
    expect(longestGap([100, 110, 900], 105, 200)).toBe(90);
    expect(longestGap([100, 110, 900], 200, 1_000)).toBe(790);
    // A step that ends 5 ms after the last ack before the next step's restart.
    expect(longestGap([0, 20, 40, 1_300], 0, 45)).toBe(20);
  });

  it('runs an unclosed gap to the edge of the window', () => {
    expect(longestGap([100, 110], 105, 1_000)).toBe(890);
    expect(longestGap([], 0, 250)).toBe(250);
    expect(longestGap([500], 0, 250)).toBe(250);
  });

  it('is zero for an empty window', () => {
    expect(longestGap([1, 2, 3], 5, 4)).toBe(0);
  });
});

describe('typicalGap', () => {
  it('is the median gap inside the window', () => {
    expect(typicalGap([0, 10, 20, 35, 500, 520], 0, 520)).toBe(15);
    expect(typicalGap([0, 10, 20, 35, 500, 520], 0, 20)).toBe(10);
    expect(typicalGap([5], 0, 10)).toBe(0);
  });
});

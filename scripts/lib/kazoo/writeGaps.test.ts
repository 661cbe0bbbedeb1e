import { describe, expect, it } from 'vitest';
import { longestGap, typicalGap, writesSentIn } from './writeGaps.js';

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

describe('writesSentIn', () => {
  const acks = [
    { sentAt: 0, at: 5 },
    { sentAt: 25, at: 30 },
    // Sent at 50, stalled until 1_200 (a member removed under it): its wait runs from the ack at 30.
    { sentAt: 50, at: 1_200 },
    { sentAt: 1_220, at: 1_226 },
  ];

  it('charges a stall to the window its write was sent in, whenever its ack came', () => {
    expect(writesSentIn(acks, 40, 100)).toEqual([{ gapMs: 1_170, latencyMs: 1_150 }]);
    // The next window (the next step sent at 100) does not count it again.
    expect(writesSentIn(acks, 100, 2_000)).toEqual([{ gapMs: 26, latencyMs: 6 }]);
  });

  it("takes a window as [from, to) and a first write's wait from its own send", () => {
    expect(writesSentIn(acks, 0, 50)).toEqual([
      { gapMs: 5, latencyMs: 5 },
      { gapMs: 25, latencyMs: 5 },
    ]);
    expect(writesSentIn(acks, 51, 1_220)).toEqual([]);
  });
});

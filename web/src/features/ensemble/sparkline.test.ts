import { describe, expect, it } from 'vitest';
import { areaPath, downBands, linePath, maxValue, nearestIndex, niceCeil, segments, typicalStep } from './sparkline';

const frame = { from: 0, to: 100, width: 100, height: 10 };

describe('niceCeil', () => {
  it('rounds up to 1, 2, 2.5, 5 x 10^k', () => {
    expect([0, 0.3, 1, 1.1, 2.2, 4, 7, 12, 260].map(niceCeil)).toEqual([1, 0.5, 1, 2, 2.5, 5, 10, 20, 500]);
  });
});

describe('segments', () => {
  it('maps points into the frame, y from the top', () => {
    const runs = segments(
      [
        { at: 0, value: 0 },
        { at: 50, value: 5 },
        { at: 100, value: 10 },
      ],
      frame,
      10,
    );
    expect(runs).toEqual([
      [
        [0, 10],
        [50, 5],
        [100, 0],
      ],
    ]);
    expect(linePath(runs)).toBe('M0 10L50 5L100 0');
    expect(areaPath(runs, 10)).toBe('M0 10L0 10L50 5L100 0L100 10Z');
  });
  it('breaks the line at missing values and missed polls', () => {
    const points = [0, 10, 20, 30, 80, 90].map((at) => ({ at, value: at === 20 ? null : 1 }));
    expect(typicalStep(points)).toBe(10);
    expect(segments(points, frame, 1).map((r) => r.length)).toEqual([2, 1, 2]);
  });
  it('draws a lone point as a short dash and leaves it out of the area', () => {
    const runs = segments([{ at: 50, value: 1 }], frame, 1);
    expect(linePath(runs)).toBe('M49 0H51');
    expect(areaPath(runs, 10)).toBe('');
  });
  it('ignores points outside the window when scaling', () => {
    expect(
      maxValue(
        [
          [
            { at: -5, value: 99 },
            { at: 5, value: 3 },
          ],
        ],
        frame,
      ),
    ).toBe(3);
  });
});

describe('downBands', () => {
  it('marks the spans where the member did not serve', () => {
    const points = [0, 10, 20, 30, 40, 50].map((at) => ({ at, serving: at < 20 || at > 30 }));
    expect(downBands(points, frame)).toEqual([{ x: 10, width: 30 }]);
    const stillDown = [0, 10, 20].map((at) => ({ at, serving: at < 10 }));
    expect(downBands(stillDown, frame)).toEqual([{ x: 0, width: 20 }]);
  });
});

describe('nearestIndex', () => {
  it('finds the closest point in time', () => {
    const points = [{ at: 0 }, { at: 10 }, { at: 20 }];
    expect(nearestIndex(points, -3)).toBe(0);
    expect(nearestIndex(points, 4)).toBe(0);
    expect(nearestIndex(points, 6)).toBe(1);
    expect(nearestIndex(points, 99)).toBe(2);
    expect(nearestIndex([], 5)).toBe(-1);
  });
});

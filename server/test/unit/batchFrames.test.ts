import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '@keeper/shared';
import { batchFrames } from '../../src/hub/batchFrames.js';

const children = (n: number, nameLength: number): ServerEvent => ({
  topic: 'znode',
  ensemble: 'e',
  params: { path: '/p' },
  event: { kind: 'children', mode: 'full', names: Array.from({ length: n }, (_, i) => `${'x'.repeat(nameLength)}${i}`), total: n },
});

describe('batchFrames', () => {
  it('sends a small flush as the one batch JSON.stringify would make', () => {
    const events: ServerEvent[] = [
      children(3, 2),
      { topic: 'znode', ensemble: 'e', params: { path: '/p' }, event: { kind: 'watchEvent', event: 'dataChanged', at: 1 } },
    ];
    expect([...batchFrames(events)]).toEqual([JSON.stringify({ type: 'batch', events })]);
  });

  it('cuts a large flush at event boundaries into frames under the cap, losing nothing', () => {
    const events = Array.from({ length: 30 }, () => children(100, 100));
    const frames = [...batchFrames(events, 50_000)];
    expect(frames.length).toBeGreaterThan(1);
    for (const frame of frames) expect(frame.length).toBeLessThanOrEqual(50_000);
    expect(frames.flatMap((f) => (JSON.parse(f) as { events: ServerEvent[] }).events)).toEqual(events);
  });

  it('sends an event larger than the cap alone', () => {
    const big = children(1_000, 100);
    const frames = [...batchFrames([children(1, 1), big, children(1, 1)], 10_000)];
    expect(frames).toHaveLength(3);
    expect(JSON.parse(frames[1] as string)).toEqual({ type: 'batch', events: [big] });
  });

  it('sends nothing for nothing', () => {
    expect([...batchFrames([])]).toEqual([]);
  });
});

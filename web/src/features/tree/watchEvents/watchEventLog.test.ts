import { describe, expect, it } from 'vitest';
import { appendWatchEvents, visibleWatchEvents, type WatchEventFilter } from './watchEventLog';

const ev = (path: string, event: 'created' | 'deleted' | 'dataChanged' | 'childrenChanged' = 'dataChanged', ensemble = 'e') => ({
  ensemble,
  path,
  event,
  at: 1,
});
const all: WatchEventFilter = { ensemble: 'e', text: '', types: new Set() };

describe('appendWatchEvents', () => {
  it('puts the newest first and numbers them', () => {
    const log = appendWatchEvents([], [ev('/a'), ev('/b')], 1);
    expect(log.map((r) => [r.path, r.seq])).toEqual([
      ['/b', 2],
      ['/a', 1],
    ]);
  });
  it('drops the echo of one change reported by two watches', () => {
    const log = appendWatchEvents([], [ev('/a', 'deleted')], 1);
    const next = appendWatchEvents(log, [{ ...ev('/a', 'deleted'), at: 2 }, ev('/a', 'created')], 2);
    expect(next.map((r) => [r.event, r.seq])).toEqual([
      ['created', 2],
      ['deleted', 1],
    ]);
    // A real second change shortly after is kept.
    const later = appendWatchEvents(next, [{ ...ev('/a', 'created'), at: 150 }], 3);
    expect(later).toHaveLength(3);
  });
  it('caps the log', () => {
    let log = appendWatchEvents([], [ev('/a'), ev('/b'), ev('/c')], 1, 2);
    expect(log.map((r) => r.path)).toEqual(['/c', '/b']);
    log = appendWatchEvents(log, [ev('/d')], 4, 2);
    expect(log.map((r) => r.path)).toEqual(['/d', '/c']);
  });
});

describe('visibleWatchEvents', () => {
  const log = appendWatchEvents([], [ev('/app/x', 'created'), ev('/app/y', 'deleted'), ev('/other', 'dataChanged', 'f')], 1);
  it('filters by ensemble, text and type', () => {
    expect(visibleWatchEvents(log, all, null).shown.map((r) => r.path)).toEqual(['/app/y', '/app/x']);
    expect(visibleWatchEvents(log, { ...all, text: 'APP/X' }, null).shown.map((r) => r.path)).toEqual(['/app/x']);
    expect(visibleWatchEvents(log, { ...all, types: new Set(['deleted'] as const) }, null).shown.map((r) => r.path)).toEqual(['/app/y']);
  });
  it('holds back events that arrived after a pause and counts them', () => {
    const later = appendWatchEvents(log, [ev('/app/z')], 4);
    const v = visibleWatchEvents(later, all, 3);
    expect(v.shown.map((r) => r.path)).toEqual(['/app/y', '/app/x']);
    expect(v.waiting).toBe(1);
  });
});

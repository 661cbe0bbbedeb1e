/** The znode topic's child lists: whole when small, in pages when big, made once per list the registry holds. */
import { describe, expect, it } from 'vitest';
import type { TopicEvent } from '@keeper/shared';
import type { Ensemble } from '../../src/ensemble/ensemble.js';
import type { WatchListener } from '../../src/zk/watchRegistry.js';
import { CHILDREN_PAGE_BYTES, childrenListEvents, znodeProducer } from '../../src/topics/znodeProducer.js';

const namesOf = (n: number, width = 50) => Array.from({ length: n }, (_, i) => `${String(i).padStart(8, '0')}-${'n'.repeat(width)}`);

describe('childrenListEvents', () => {
  it('sends a small list whole, in one event', () => {
    const names = namesOf(10);
    expect(childrenListEvents(names)).toEqual([{ kind: 'children', mode: 'full', names, total: 10 }]);
    expect(childrenListEvents([])).toEqual([{ kind: 'children', mode: 'full', names: [], total: 0 }]);
  });

  it('cuts a big list into pages of about CHILDREN_PAGE_BYTES that together are the list, in order, the last one marked', () => {
    const names = namesOf(100_000);
    const events = childrenListEvents(names);
    expect(events.length).toBeGreaterThan(10);
    let offset = 0;
    const joined: string[] = [];
    events.forEach((event, i) => {
      if (event.mode !== 'page') throw new Error('expected pages');
      expect(event.offset).toBe(offset);
      expect(event.total).toBe(100_000);
      expect(event.last).toBe(i === events.length - 1);
      expect(JSON.stringify(event.names).length).toBeLessThanOrEqual(CHILDREN_PAGE_BYTES);
      offset += event.names.length;
      joined.push(...event.names);
    });
    expect(joined).toEqual(names);
  });

  it('makes the events of one list once: the same array gives the same objects, a new list new ones', () => {
    const names = namesOf(20_000);
    expect(childrenListEvents(names)[0]).toBe(childrenListEvents(names)[0]);
    expect(childrenListEvents([...names])[0]).not.toBe(childrenListEvents(names)[0]);
  });
});

describe('znodeProducer', () => {
  it('hands a browser joining later the very events the others got: the state as first read (its time too) and the list', () => {
    const node = { exists: false as const };
    const names = namesOf(3);
    // The registry replays what it holds to each new listener: the same objects.
    const ensemble = {
      gateway: {
        watches: {
          watch: (_path: string, listener: WatchListener) => {
            listener.onNode(node);
            listener.onChildren({ names, diff: null, cversion: null });
            return () => {};
          },
        },
      },
    } as unknown as Ensemble;
    const open = () => {
      const got: TopicEvent<'znode'>[] = [];
      znodeProducer.open({ ensemble, params: { path: '/a' }, role: 'viewer', scope: null, emit: (e) => got.push(e) })();
      return got;
    };
    const first = open();
    const later = open();
    expect(later).toHaveLength(2);
    expect(later[0]).toBe(first[0]);
    expect(later[1]).toBe(first[1]);
  });
});

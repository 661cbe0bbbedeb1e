import { describe, expect, it } from 'vitest';
import type { EnsembleEvent } from '@keeper/shared';
import { MAX_EVENTS_SHOWN, reduceEnsembleEvents } from './ensembleEvents';

const ev = (seq: number): EnsembleEvent => ({ seq, at: seq * 1_000, kind: 'member-down', text: `e${seq}`, severity: 'warning', member: null });

describe('reduceEnsembleEvents', () => {
  it('takes the full list, then appends new events once each, bounded', () => {
    let entry = reduceEnsembleEvents(undefined, { kind: 'events', mode: 'full', events: [ev(1), ev(2)] }, 1);
    entry = reduceEnsembleEvents(entry, { kind: 'events', mode: 'append', events: [ev(2), ev(3)] }, 1);
    expect(entry.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    const many = Array.from({ length: MAX_EVENTS_SHOWN + 5 }, (_, i) => ev(i + 4));
    entry = reduceEnsembleEvents(entry, { kind: 'events', mode: 'append', events: many }, 1);
    expect(entry.events).toHaveLength(MAX_EVENTS_SHOWN);
    expect(entry.events.at(-1)!.seq).toBe(MAX_EVENTS_SHOWN + 8);
    // A reconnect sends the whole list again: it replaces what was there.
    expect(reduceEnsembleEvents(entry, { kind: 'events', mode: 'full', events: [ev(9)] }, 2)).toEqual({ events: [ev(9)], epoch: 2 });
  });
});

/**
 * The ensemble's event timeline in the web: the kept events on subscribe, then each new one
 * appended (by sequence number, so a repeated event is not shown twice). Bounded like the
 * server's list, so a tab open for a week does not grow.
 */
import type { EnsembleEvent, TopicEvent } from '@keeper/shared';

export interface EnsembleEventsEntry {
  events: readonly EnsembleEvent[];
  epoch: number;
}

/** The server keeps at most 2,000; a tab keeps no more. */
export const MAX_EVENTS_SHOWN = 2_000;

export function reduceEnsembleEvents(prev: EnsembleEventsEntry | undefined, event: TopicEvent<'ensembleEvents'>, epoch: number): EnsembleEventsEntry {
  if (event.mode === 'full') return { events: event.events.slice(-MAX_EVENTS_SHOWN), epoch };
  const last = prev?.events.at(-1)?.seq ?? -Infinity;
  const added = event.events.filter((e) => e.seq > last);
  return { events: [...(prev?.events ?? []), ...added].slice(-MAX_EVENTS_SHOWN), epoch };
}

/** What the kind of an event is called on screen: a word, never a colour alone. */
export const EVENT_WORD: Record<EnsembleEvent['kind'], string> = {
  watching: 'watching',
  'leader-lost': 'leader lost',
  'leader-elected': 'leader',
  'member-down': 'member out',
  'member-up': 'member back',
  'member-state': 'member',
  'alert-raised': 'alert',
  'alert-cleared': 'cleared',
  upgrade: 'upgrade',
  resize: 'resize',
  configuration: 'config',
};

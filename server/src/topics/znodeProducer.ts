/**
 * The `znode` topic: one listener on the ensemble's shared watch registry per channel, so a
 * thousand browsers on one path cost one ZooKeeper watch and one listener. Children go out in
 * full the first time (and whenever the registry has no diff), then as diffs. A full list over
 * CHILDREN_PAGE_BYTES goes in pages, so no frame is bigger than a page and a browser that reads
 * slowly is sent the next page only when it has taken the last. The events of a list, and of a
 * node's state, are made once per list or state the registry holds: every browser joining later
 * is handed the same objects, serialized once.
 */
import type { TopicEvent } from '@keeper/shared';
import type { TopicProducer } from './topicProducer.js';

/** A full child list whose names take more than this (as JSON) goes in pages of about this size. */
export const CHILDREN_PAGE_BYTES = 256 * 1024;

type ChildrenEvent = Extract<TopicEvent<'znode'>, { kind: 'children' }>;

/** The registry never mutates a list it handed out (a change replaces the array): its events can be kept with it. */
const listEvents = new WeakMap<readonly string[], readonly ChildrenEvent[]>();

type StateEvent = Extract<TopicEvent<'znode'>, { kind: 'state' }>;

/**
 * The same for a node's state: one event per state the registry read, stamped when Keeper first
 * had it, so a browser joining later is handed the very event (and bytes) the others were, and
 * its time says when the state was read, not when the browser joined.
 */
const stateEvents = new WeakMap<object, StateEvent>();

function stateEvent(node: StateEvent['node']): StateEvent {
  let event = stateEvents.get(node);
  if (!event) stateEvents.set(node, (event = { kind: 'state', node, at: Date.now() }));
  return event;
}

/** The events that carry a whole list: one `full` event, or pages that together are the list. */
export function childrenListEvents(names: readonly string[], pageBytes = CHILDREN_PAGE_BYTES): readonly ChildrenEvent[] {
  const known = listEvents.get(names);
  if (known) return known;
  const total = names.length;
  const pages: ChildrenEvent[] = [];
  let start = 0;
  let size = 0;
  for (let i = 0; i < total; i++) {
    // Quotes and a comma around each name; escapes are rare in znode names and only make a page a little bigger.
    const cost = (names[i] as string).length + 3;
    if (size > 0 && size + cost > pageBytes) {
      pages.push({ kind: 'children', mode: 'page', names: names.slice(start, i), total, offset: start, last: false });
      start = i;
      size = 0;
    }
    size += cost;
  }
  const events: ChildrenEvent[] =
    pages.length === 0
      ? [{ kind: 'children', mode: 'full', names: names.slice(), total }]
      : [...pages, { kind: 'children', mode: 'page', names: names.slice(start), total, offset: start, last: true }];
  listEvents.set(names, events);
  return events;
}

export const znodeProducer: TopicProducer<'znode'> = {
  topic: 'znode',
  addsWatch: (ensemble, params) => !ensemble.gateway.watches.isWatched(params.path),
  open({ ensemble, params, emit }) {
    let sentFullChildren = false;
    return ensemble.gateway.watches.watch(params.path, {
      onNode: (node) => emit(stateEvent(node)),
      onChildren: ({ names, diff }) => {
        if (!sentFullChildren || !diff) {
          sentFullChildren = true;
          for (const event of childrenListEvents(names)) emit(event);
        } else {
          emit({ kind: 'children', mode: 'diff', added: diff.added, removed: diff.removed, total: names.length });
        }
      },
      onWatchEvent: (event, at) => emit({ kind: 'watchEvent', event, at }),
      onError: (error, retrying) => emit({ kind: 'error', message: error.message, retrying }),
    });
  },
};

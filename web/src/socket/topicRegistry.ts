/**
 * What the web does with each live topic's events: features register a binding (the query key a
 * subscription's state lives under, and the reducer that folds an event into it) and, if they
 * want, taps that see every event of a topic (the watch event log). The socket code routes by
 * topic name through this registry and imports no feature.
 */
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { TopicEvent, TopicName, TopicParams } from '@keeper/shared';

export interface TopicContext {
  /** The socket connection the event arrived on: entries from an older one are not live. */
  epoch: number;
  /** Browser time, for events that carry no server time. */
  now: number;
}

/** Epoch given to entries nobody subscribes to any more: never equal to a live connection's epoch. */
export const RELEASED_EPOCH = -1;

export interface TopicBinding<T extends TopicName, Entry> {
  topic: T;
  queryKey(ensemble: string, params: TopicParams<T>): QueryKey;
  /** The next entry; undefined keeps the cache as it is (a diff with nothing to apply it to). */
  reduce(prev: Entry | undefined, event: TopicEvent<T>, ctx: TopicContext, params: TopicParams<T>): Entry | undefined;
  /** The server refused the subscription (out of scope, invalid, too many): what the view shows instead. */
  refused?(prev: Entry | undefined, message: string, ctx: TopicContext): Entry | undefined;
  /** Nobody shows it any more, so nothing may present it as live; by default the entry's epoch becomes RELEASED_EPOCH. */
  released?(prev: Entry): Entry;
}

export type TopicTap<T extends TopicName> = (
  ensemble: string,
  params: TopicParams<T>,
  event: TopicEvent<T>,
  ctx: TopicContext & { client: QueryClient },
) => void;

// Bindings are stored loosely typed: registerTopic checks them against their topic at the call.
type AnyBinding = TopicBinding<TopicName, unknown>;
const bindings = new Map<TopicName, AnyBinding>();
const taps = new Map<TopicName, Set<TopicTap<TopicName>>>();

export function registerTopic<T extends TopicName, Entry>(binding: TopicBinding<T, Entry>): TopicBinding<T, Entry> {
  bindings.set(binding.topic, binding as unknown as AnyBinding);
  return binding;
}

export function tapTopic<T extends TopicName>(topic: T, tap: TopicTap<T>): () => void {
  let set = taps.get(topic);
  if (!set) taps.set(topic, (set = new Set()));
  const loose = tap as unknown as TopicTap<TopicName>;
  set.add(loose);
  return () => set.delete(loose);
}

/** Every topic's binding, one per name of TOPICS: web/src/topicBindings.ts lists them, so a topic without one does not compile. */
export type TopicBindings = { readonly [T in TopicName]: TopicBinding<T, unknown> };

/** Installs the whole record at start-up (main.tsx), whichever features' chunks have loaded yet. */
export function installBindings(all: TopicBindings): void {
  for (const binding of Object.values(all)) registerTopic(binding);
}

/** The topic's binding. None is a programming error (the record above makes it a compile error), not an event to drop. */
export function bindingOf(topic: TopicName): AnyBinding {
  const binding = bindings.get(topic);
  if (!binding) throw new Error(`keeper: no web binding for topic ${topic}: list it in web/src/topicBindings.ts`);
  return binding;
}

export function tapsOf(topic: TopicName): ReadonlySet<TopicTap<TopicName>> {
  return taps.get(topic) ?? new Set();
}

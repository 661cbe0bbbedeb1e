/**
 * A topic's web binding, declared once with its entry type: `defineBinding<Entry>()({topic,
 * queryKey, reduce, ...})` checks the reducer against the topic's event and parameters, registers
 * it, and returns it with `useEntry`, the hook that reads what it keeps, typed as that same entry
 * (no caller names the entry type again). Every topic's binding is listed in web/src/topicBindings.ts,
 * a record over TopicName, so a topic without one does not compile.
 */
import { useQuery, type QueryKey } from '@tanstack/react-query';
import type { TopicName, TopicParams } from '@keeper/shared';
import { socketFed } from './hooks';
import { registerTopic, type TopicBinding } from './topicRegistry';

export interface DefinedBinding<T extends TopicName, Entry> extends TopicBinding<T, Entry> {
  /** The entry this binding keeps for (ensemble, params); undefined until the first event, or while disabled. */
  useEntry(ensemble: string, params: TopicParams<T>, enabled?: boolean): Entry | undefined;
}

/** Socket-fed queries never fetch: the binding's reducer is the entry's only writer. */
function useTopicEntry<Entry>(queryKey: QueryKey, enabled: boolean): Entry | undefined {
  return useQuery<Entry>({ queryKey, ...socketFed, enabled }).data;
}

export function defineBinding<Entry>() {
  return <T extends TopicName>(binding: TopicBinding<T, Entry>): DefinedBinding<T, Entry> => {
    registerTopic(binding);
    return {
      ...binding,
      useEntry: (ensemble, params, enabled = true) => useTopicEntry<Entry>(binding.queryKey(ensemble, params), enabled),
    };
  };
}

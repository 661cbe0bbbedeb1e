/**
 * Writes one server batch into the query cache through the topic registry: each event goes to
 * its subscription's entry by the topic's binding, then to the topic's taps. Called inside
 * notifyManager.batch by the provider, so a batch of 300 children diffs and znode updates costs
 * one render, not 300.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { ServerEvent } from '@keeper/shared';
import type { SubscriptionTarget } from './subscriptionRegistry';
import { RELEASED_EPOCH, bindingOf, tapsOf, type TopicContext } from './topicRegistry';

export function applyServerEvents(client: QueryClient, events: readonly ServerEvent[], ctx: TopicContext): void {
  for (const message of events) {
    // Every topic has one (web/src/topicBindings.ts is a record over TopicName, installed at start-up).
    const binding = bindingOf(message.topic);
    client.setQueryData(binding.queryKey(message.ensemble, message.params), (prev: unknown) => binding.reduce(prev, message.event, ctx, message.params));
    for (const tap of tapsOf(message.topic)) tap(message.ensemble, message.params, message.event, { ...ctx, client });
  }
}

/** The server refused a subscription: its binding says what the view shows instead. */
export function applyRefusal(client: QueryClient, target: SubscriptionTarget, message: string, ctx: TopicContext): boolean {
  const binding = bindingOf(target.topic);
  if (!binding.refused) return false;
  client.setQueryData(binding.queryKey(target.ensemble, target.params as never), (prev: unknown) => binding.refused?.(prev, message, ctx));
  return true;
}

/** Marks the cached state of a subscription as no longer followed, so nothing shows it as live. */
export function markReleased(client: QueryClient, target: SubscriptionTarget): void {
  const binding = bindingOf(target.topic);
  client.setQueryData(binding.queryKey(target.ensemble, target.params as never), (prev: unknown) => {
    if (prev === undefined || prev === null) return prev;
    return binding.released ? binding.released(prev) : { ...(prev as object), epoch: RELEASED_EPOCH };
  });
}

/**
 * Reference counts per subscription, so two components showing the same znode (or the same
 * ensemble's health) cost one server subscription, and the wire only hears about the first acquire
 * and the last release. Pure bookkeeping; SocketClient decides when to send.
 */
import { subscriptionKey, type ClientMessage, type TopicName } from '@keeper/shared';

/** One subscription: a topic of an ensemble with its parameters. */
export interface SubscriptionTarget {
  topic: TopicName;
  ensemble: string;
  params: unknown;
}

export function targetKey(target: SubscriptionTarget): string {
  return subscriptionKey(target.topic, target.ensemble, target.params);
}

export function subscribeMessage(target: SubscriptionTarget, id: string): ClientMessage {
  return { type: 'subscribe', topic: target.topic, ensemble: target.ensemble, params: target.params, id };
}

export function unsubscribeMessage(target: SubscriptionTarget): ClientMessage {
  return { type: 'unsubscribe', topic: target.topic, ensemble: target.ensemble, params: target.params };
}

export class SubscriptionRegistry {
  private readonly counts = new Map<string, { target: SubscriptionTarget; holders: number }>();

  /** Returns true when this is the first holder (the caller should subscribe). */
  acquire(target: SubscriptionTarget): boolean {
    const key = targetKey(target);
    const held = this.counts.get(key);
    if (held) {
      held.holders++;
      return false;
    }
    this.counts.set(key, { target, holders: 1 });
    return true;
  }

  /** Returns true when the last holder let go (the caller may unsubscribe). */
  release(key: string): boolean {
    const held = this.counts.get(key);
    if (!held) return false;
    held.holders--;
    if (held.holders > 0) return false;
    this.counts.delete(key);
    return true;
  }

  has(key: string): boolean {
    return this.counts.has(key);
  }

  count(key: string): number {
    return this.counts.get(key)?.holders ?? 0;
  }

  targets(): SubscriptionTarget[] {
    return [...this.counts.values()].map((h) => h.target);
  }
}

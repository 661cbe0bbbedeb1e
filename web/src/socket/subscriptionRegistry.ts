/**
 * Reference counts per subscription target, so two components showing the same znode (or the same
 * ensemble's health) cost one server subscription, and the wire only hears about the first acquire
 * and the last release. Pure bookkeeping; SocketClient decides when to send.
 */
import type { ClientMessage } from '@keeper/shared';

/** What a browser can follow: a znode (its state and children) or an ensemble's member health. */
export type SubscriptionTarget =
  | { kind: 'znode'; ensemble: string; path: string }
  | { kind: 'ensemble'; ensemble: string };

// Ensemble names cannot contain NUL, and neither can ZooKeeper paths: a safe separator.
export function targetKey(target: SubscriptionTarget): string {
  return target.kind === 'znode' ? `z\u0000${target.ensemble}\u0000${target.path}` : `e\u0000${target.ensemble}`;
}

export function parseTargetKey(key: string): SubscriptionTarget {
  const [kind, ensemble = '', ...rest] = key.split('\u0000');
  return kind === 'z' ? { kind: 'znode', ensemble, path: rest.join('\u0000') } : { kind: 'ensemble', ensemble };
}

export function subscribeMessage(target: SubscriptionTarget, id: string): ClientMessage {
  return target.kind === 'znode'
    ? { type: 'subscribe', ensemble: target.ensemble, path: target.path, id }
    : { type: 'watchEnsemble', ensemble: target.ensemble, id };
}

export function unsubscribeMessage(target: SubscriptionTarget): ClientMessage {
  return target.kind === 'znode'
    ? { type: 'unsubscribe', ensemble: target.ensemble, path: target.path }
    : { type: 'unwatchEnsemble', ensemble: target.ensemble };
}

export class SubscriptionRegistry {
  private readonly counts = new Map<string, number>();

  /** Returns true when this is the first holder (the caller should subscribe). */
  acquire(key: string): boolean {
    const n = this.counts.get(key) ?? 0;
    this.counts.set(key, n + 1);
    return n === 0;
  }

  /** Returns true when the last holder let go (the caller may unsubscribe). */
  release(key: string): boolean {
    const n = this.counts.get(key) ?? 0;
    if (n <= 1) {
      this.counts.delete(key);
      return n === 1;
    }
    this.counts.set(key, n - 1);
    return false;
  }

  has(key: string): boolean {
    return this.counts.has(key);
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  keys(): string[] {
    return [...this.counts.keys()];
  }
}

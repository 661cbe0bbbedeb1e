/**
 * Reference counts per (ensemble, path), so two components showing the same znode cost one
 * server subscription, and the wire only hears about the first acquire and the last release.
 * Pure bookkeeping; SocketClient decides when to send.
 */
export interface SubscriptionTarget {
  ensemble: string;
  path: string;
}

// Ensemble names cannot contain NUL, and neither can ZooKeeper paths: a safe separator.
export function subscriptionKey(ensemble: string, path: string): string {
  return `${ensemble}\u0000${path}`;
}

export function parseSubscriptionKey(key: string): SubscriptionTarget {
  const i = key.indexOf('\u0000');
  return { ensemble: key.slice(0, i), path: key.slice(i + 1) };
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

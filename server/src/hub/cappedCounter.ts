/**
 * Counts something a caller can make grow (sockets, subscriptions) per identity and in total,
 * and refuses past either cap. Per-identity caps do not apply to the open development mode
 * (loopback only, where every caller is the one anonymous admin): there the total is the cap.
 */
import type { Identity } from '../auth/identity.js';

export type CapVerdict = { ok: true } | { ok: false; cap: 'identity' | 'total'; limit: number };

export class CappedCounter {
  private readonly byKey = new Map<string, number>();
  private all = 0;

  constructor(
    readonly perIdentity: number,
    readonly total: number,
  ) {}

  get count(): number {
    return this.all;
  }

  countFor(identity: Identity): number {
    return this.byKey.get(keyOf(identity)) ?? 0;
  }

  /** Takes one unit if both caps allow it. */
  take(identity: Identity): CapVerdict {
    if (this.all >= this.total) return { ok: false, cap: 'total', limit: this.total };
    const key = keyOf(identity);
    const mine = this.byKey.get(key) ?? 0;
    if (identity.via !== 'open' && mine >= this.perIdentity) return { ok: false, cap: 'identity', limit: this.perIdentity };
    this.byKey.set(key, mine + 1);
    this.all++;
    return { ok: true };
  }

  /** Gives back one unit taken with `take`. */
  give(identity: Identity): void {
    const key = keyOf(identity);
    const mine = this.byKey.get(key) ?? 0;
    if (mine <= 0) return;
    if (mine === 1) this.byKey.delete(key);
    else this.byKey.set(key, mine - 1);
    this.all--;
  }
}

/** One identity however it signed in: a user, a token, one share link. */
function keyOf(identity: Identity): string {
  return `${identity.role}\0${identity.name}`;
}

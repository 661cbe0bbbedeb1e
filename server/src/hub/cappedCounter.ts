/**
 * Counts something a caller can make grow (sockets, subscriptions) per person, per identity, for
 * share links together and in total, and refuses past any of them. Admins may use the whole
 * total; everyone else stops short of it by the admins' reserve, so no number of viewers or share
 * links can lock an admin out. The open development mode (loopback only, where every caller is
 * the one anonymous admin) has only the total.
 */
import type { Identity } from '../auth/identity.js';

export interface Caps {
  perPerson: number;
  perIdentity: number;
  /** Every share link's holders together. */
  shareLinks: number;
  /** Of `total`, what only admins may take. */
  reservedForAdmins: number;
  total: number;
}

/** Who takes a unit: the identity that signed in, and the person (a browser's sign-in, a script's token and address). */
export interface Holder {
  identity: Identity;
  /** Opaque key; holders with the same one are one person. */
  person: string;
}

export type CapName = 'person' | 'identity' | 'shareLinks' | 'total';
export type CapVerdict = { ok: true } | { ok: false; cap: CapName; limit: number; reservedForAdmins: number };

export class CappedCounter {
  private readonly byPerson = new Map<string, number>();
  private readonly byIdentity = new Map<string, number>();
  private shared = 0;
  private all = 0;

  constructor(readonly caps: Caps) {}

  get count(): number {
    return this.all;
  }

  countFor(identity: Identity): number {
    return this.byIdentity.get(identityKey(identity)) ?? 0;
  }

  countForPerson(person: string): number {
    return this.byPerson.get(person) ?? 0;
  }

  /** Takes one unit if every cap allows it. */
  take(holder: Holder): CapVerdict {
    const { identity, person } = holder;
    const { caps } = this;
    const refuse = (cap: CapName, limit: number): CapVerdict => ({ ok: false, cap, limit, reservedForAdmins: caps.reservedForAdmins });
    if (identity.via === 'open') {
      if (this.all >= caps.total) return refuse('total', caps.total);
    } else {
      const mine = this.byPerson.get(person) ?? 0;
      if (mine >= caps.perPerson) return refuse('person', caps.perPerson);
      if ((this.byIdentity.get(identityKey(identity)) ?? 0) >= caps.perIdentity) return refuse('identity', caps.perIdentity);
      if (identity.via === 'share' && this.shared >= caps.shareLinks) return refuse('shareLinks', caps.shareLinks);
      const limit = identity.role === 'admin' ? caps.total : Math.max(0, caps.total - caps.reservedForAdmins);
      if (this.all >= limit) return refuse('total', limit);
    }
    this.add(holder, 1);
    return { ok: true };
  }

  /** Gives back one unit taken with `take`. */
  give(holder: Holder): void {
    if (this.countFor(holder.identity) <= 0) return;
    this.add(holder, -1);
  }

  private add({ identity, person }: Holder, delta: 1 | -1): void {
    bump(this.byIdentity, identityKey(identity), delta);
    if (identity.via !== 'open') bump(this.byPerson, person, delta);
    if (identity.via === 'share') this.shared += delta;
    this.all += delta;
  }
}

function bump(map: Map<string, number>, key: string, delta: number): void {
  const next = (map.get(key) ?? 0) + delta;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}

/** One identity however it signed in: a user, a token, one share link (a viewer and an admin of the same name are two). */
function identityKey(identity: Identity): string {
  return `${identity.role}\0${identity.name}`;
}

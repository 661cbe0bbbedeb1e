/**
 * Failed sign-ins, counted per window: password, token (POST /api/login, `?token=`, a bearer
 * header over HTTP or on the socket upgrade) and share-link guesses. Each attempt is keyed twice:
 * by address and the name tried (10 by default), so one person's typos or an attacker trying
 * "admin" do not lock a colleague behind the same address out of their own name; and by address
 * alone (a larger budget), so spraying many names from one address is still stopped.
 * A password tried from a browser where that user signed in before (a device) is keyed by the
 * device alone, so a guesser at the same address cannot spend its budget.
 * Only failures count. The table is bounded: past `maxKeys` the oldest windows are dropped.
 *
 * With replicas, each failure is also counted in the home ensemble (replicas/sharedSignInFailures.ts)
 * and the total there becomes this replica's count: N replicas then allow about what one allows
 * (at most N − 1 more), not N times as much. Checking stays local and synchronous; when the home
 * ensemble cannot count, the replica's own count still limits (never no limit).
 */

export interface SignInLimits {
  /** Failures per address and name per window. */
  perName: number;
  /** Failures per address (all names together) per window. */
  perAddress: number;
  windowMs: number;
  /** Keys remembered at most (memory bound). */
  maxKeys?: number;
}

interface Window {
  startedAt: number;
  failures: number;
  /** Set once the first refusal of this window has been reported (so it is audited once). */
  reported: boolean;
}

/** Failures counted across replicas: the key's total in the current window after this one, or null when not counted. */
export interface FailureShare {
  add(key: string, now: number): Promise<number | null>;
}

export type SignInCheck = { ok: true } | { ok: false; retryAfterSeconds: number; firstRefusal: boolean };

/** Longest name kept in a key or recorded anywhere: a guess may be megabytes long. */
export const MAX_SIGN_IN_NAME = 64;

export function capName(name: string): string {
  return name.length > MAX_SIGN_IN_NAME ? `${name.slice(0, MAX_SIGN_IN_NAME)}…` : name;
}

export class SignInLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  private shared: FailureShare | null = null;

  constructor(
    readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.maxKeys = limits.maxKeys ?? 50_000;
  }

  /** Before verifying anything: is this address (or this name from it) over its budget? */
  check(address: string, name: string, device?: string): SignInCheck {
    const now = this.now();
    let blocked: Window | null = null;
    for (const [key, limit] of this.keys(address, name, device)) {
      const w = this.current(key, now);
      if (w && w.failures >= limit) blocked = blocked && blocked.startedAt <= w.startedAt ? blocked : w;
    }
    if (!blocked) return { ok: true };
    const firstRefusal = !blocked.reported;
    blocked.reported = true;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((blocked.startedAt + this.limits.windowMs - now) / 1000)), firstRefusal };
  }

  /** From now on failures are counted across replicas too. */
  share(shared: FailureShare): void {
    this.shared = shared;
  }

  /** A failed attempt: counts against both keys; with replicas, resolves once the shared totals are known here. */
  fail(address: string, name: string, device?: string): Promise<void> {
    const now = this.now();
    const counted: Promise<void>[] = [];
    for (const [key] of this.keys(address, name, device)) {
      let w = this.current(key, now);
      if (!w) {
        if (this.windows.size >= this.maxKeys) this.evict(now);
        w = { startedAt: now, failures: 0, reported: false };
        this.windows.set(key, w);
      }
      w.failures++;
      const window = w;
      if (this.shared)
        counted.push(
          this.shared.add(key, now).then((total) => {
            // The replicas' total (this failure included) when it is higher than what this one saw.
            if (total !== null && this.windows.get(key) === window) window.failures = Math.max(window.failures, total);
          }),
        );
    }
    return Promise.all(counted).then(() => undefined);
  }

  get size(): number {
    return this.windows.size;
  }

  private keys(address: string, name: string, device?: string): [string, number][] {
    if (device !== undefined) return [[`d\0${device}`, this.limits.perName]];
    return [
      [`a\0${address}`, this.limits.perAddress],
      [`n\0${address}\0${capName(name)}`, this.limits.perName],
    ];
  }

  private current(key: string, now: number): Window | null {
    const w = this.windows.get(key);
    if (!w) return null;
    if (now - w.startedAt >= this.limits.windowMs) {
      this.windows.delete(key);
      return null;
    }
    return w;
  }

  private evict(now: number): void {
    for (const [key, w] of this.windows) if (now - w.startedAt >= this.limits.windowMs) this.windows.delete(key);
    // Still full: forget the oldest (Map keeps insertion order).
    while (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next().value;
      if (oldest === undefined) break;
      this.windows.delete(oldest);
    }
  }
}

/**
 * Single sign-ons under way: between the redirect to the provider and its answer, what this
 * browser must prove it started (the state, the nonce, the PKCE verifier, where to go after).
 * The browser holds only a random binding in a cookie; the rest stays here, keyed by its hash, and
 * is taken (used once) by the callback. A code replayed later finds nothing to complete.
 *
 * Bounded: 10 minutes each, at most 20 per address (one address cannot push others' sign-ins
 * out) and 5,000 in all (the oldest dropped first).
 */
import { randomToken, sha256Hex } from '../secrets.js';

export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The console page to open afterwards (a local path). */
  next: string;
  /** The redirect_uri the provider was given: the code exchange must name the same. */
  redirectUri: string;
  address: string;
  startedAt: number;
}

export const PENDING_TTL_MS = 10 * 60_000;

export interface PendingLimits {
  perAddress: number;
  total: number;
}

export class PendingSignIns {
  private readonly pending = new Map<string, PendingSignIn>();

  constructor(
    private readonly limits: PendingLimits = { perAddress: 20, total: 5_000 },
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps a new sign-in; returns the cookie value that binds it to this browser. */
  start(signIn: Omit<PendingSignIn, 'startedAt'>): string {
    this.sweep();
    const fromAddress = [...this.pending].filter(([, p]) => p.address === signIn.address);
    if (fromAddress.length >= this.limits.perAddress) this.pending.delete(fromAddress[0]![0]);
    if (this.pending.size >= this.limits.total) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    const binding = randomToken();
    this.pending.set(sha256Hex(binding), { ...signIn, startedAt: this.now() });
    return binding;
  }

  /** The sign-in this browser started, removed so it completes once; null when none (or too old). */
  take(binding: string | null): PendingSignIn | null {
    if (!binding) return null;
    const key = sha256Hex(binding);
    const found = this.pending.get(key) ?? null;
    this.pending.delete(key);
    if (found && this.now() - found.startedAt > PENDING_TTL_MS) return null;
    return found;
  }

  get size(): number {
    return this.pending.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, p] of this.pending) {
      if (now - p.startedAt <= PENDING_TTL_MS) break;
      this.pending.delete(key);
    }
  }
}

/** "Is this member serving, and as what?" asked the way operators ask: srvr's Mode line. */
import { fourLetterWord, parseSrvrMode, type TlsClientPem } from './fourLetterWord.js';

export interface ProbeTarget {
  host: string;
  clientPort: number;
  /** A TLS-only member is asked over TLS. */
  tls?: TlsClientPem | null;
}

/**
 * The member's Mode (leader/follower/...), or null when it is down, hung or outside a
 * quorum. srvr cannot be switched off: ZooKeeper adds it to any 4lw whitelist. Over TLS the
 * handshake is the member's costliest work, and a JVM just started does it slowly: more time.
 */
export async function memberMode(t: ProbeTarget, timeoutMs = t.tls ? 5000 : 1500): Promise<string | null> {
  try {
    return parseSrvrMode(await fourLetterWord(t.host, t.clientPort, 'srvr', timeoutMs, t.tls ?? null));
  } catch {
    return null;
  }
}

/** Polls until check() returns a non-null value; throws describe() after the deadline. */
export async function pollUntil<T>(
  check: () => Promise<T | null>,
  opts: { timeoutMs: number; intervalMs?: number; describe: () => string | Promise<string> },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() >= deadline) throw new Error(await opts.describe());
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

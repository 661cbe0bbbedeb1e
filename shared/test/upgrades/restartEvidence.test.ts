/** A fast restart told by its uptime, even on a member that itself started only seconds ago. */
import { describe, expect, it } from 'vitest';
import { baselineOf, detectRestart } from '../../src/index.js';
import { member } from './support.js';

const T = 1_700_000_000_000;

describe('detectRestart by uptime', () => {
  it('tells a restart in about a second on a member up for only 3 s', () => {
    const before = baselineOf(member({ id: 1, state: 'follower', uptimeSeconds: 3 }, T));
    // Two seconds later the old process would say 5 s; the new one says 0 s.
    expect(detectRestart(before, member({ id: 1, state: 'follower', uptimeSeconds: 0 }, T + 2_000))?.evidence).toBe('uptime-reset');
  });

  it('counts from when the probe was sent: an answer read 15 s late by a stalled Keeper is the same process', () => {
    const before = baselineOf(member({ id: 1, state: 'follower', uptimeSeconds: 1205 }, T));
    // Sent 60 s after the baseline was read, its answer read 75 s after: the member said 1265 s
    // (it read its uptime between the two); 1280 s would be expected from the reading time.
    const late = { ...member({ id: 1, state: 'follower', uptimeSeconds: 1265 }, T + 75_000), probeSentAt: T + 60_000 };
    expect(detectRestart(before, late)).toBeNull();
    // Without the send time, the same reading looked like a restart: what the fix is for.
    expect(detectRestart(before, { ...late, probeSentAt: undefined })?.evidence).toBe('uptime-reset');
    // A real restart in that window is still told: the new process says 10 s.
    const restarted = { ...late, metrics: { ...late.metrics, uptimeSeconds: 10 } };
    expect(detectRestart(before, restarted)?.saw).toBe('uptime went back to 10 s (it was 1205 s, and would be about 1265 s without a restart)');
  });

  it('does not take whole-second rounding and a slow probe for a restart', () => {
    const before = baselineOf(member({ id: 1, state: 'follower', uptimeSeconds: 4 }, T));
    // The same process read 2.9 s later, its answer 1.9 s slower than the baseline's: it says 5 s.
    expect(detectRestart(before, member({ id: 1, state: 'follower', uptimeSeconds: 5 }, T + 2_900))).toBeNull();
    expect(detectRestart(before, member({ id: 1, state: 'follower', uptimeSeconds: 6 }, T + 2_000))).toBeNull();
  });
});

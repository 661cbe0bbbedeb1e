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

  it('does not take whole-second rounding and a slow probe for a restart', () => {
    const before = baselineOf(member({ id: 1, state: 'follower', uptimeSeconds: 4 }, T));
    // The same process read 2.9 s later, its answer 1.9 s slower than the baseline's: it says 5 s.
    expect(detectRestart(before, member({ id: 1, state: 'follower', uptimeSeconds: 5 }, T + 2_900))).toBeNull();
    expect(detectRestart(before, member({ id: 1, state: 'follower', uptimeSeconds: 6 }, T + 2_000))).toBeNull();
  });

  it("never takes Keeper's own stall for a restart: the same process read late is the same process", () => {
    // Seen under a viewer's flood and with Keeper stopped for 4 s: the step of a restart whose command
    // exited 3 turned done, by "uptime went back to 1269 s (it was 1205 s, and would be about 1280 s)".
    const before = baselineOf(member({ id: 1, state: 'follower', uptimeSeconds: 1_205, packetsReceived: 9_000 }, T));
    const lateRead = member({ id: 1, state: 'follower', uptimeSeconds: 1_269, packetsReceived: 9_800 }, T + 75_000);
    expect(detectRestart(before, lateRead)).toBeNull();
  });

  it('tells a young member restarted fast by its uptime and its counters together, never by the uptime alone', () => {
    const before = baselineOf(member({ id: 1, state: 'follower', uptimeSeconds: 3, packetsReceived: 400 }, T));
    // Restarted in a second, read 8 s later: the new process is up 6 s (more than the baseline's 3 s), 11 s were expected.
    expect(detectRestart(before, member({ id: 1, state: 'follower', uptimeSeconds: 6, packetsReceived: 90 }, T + 8_000))?.evidence).toBe('uptime-reset');
    expect(detectRestart(before, member({ id: 1, state: 'follower', uptimeSeconds: 6, packetsReceived: 900 }, T + 8_000))).toBeNull();
  });
});

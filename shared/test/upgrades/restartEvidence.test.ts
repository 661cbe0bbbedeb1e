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
});

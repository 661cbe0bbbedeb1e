import { describe, expect, it } from 'vitest';
import { ensembleHealthSchema, memberHistorySchema, sessionsAnswerSchema, watchesAnswerSchema } from '@keeper/shared';
import { healthy, history, oneDown, oneSyncing, sessions, watches } from './ensembleFixtures';

// The views' tests build on these: they must be what the server may really send.
describe('fixtures match the wire contract', () => {
  it('health and history', () => {
    for (const h of [healthy(), oneDown(), oneSyncing()]) {
      expect(ensembleHealthSchema.parse(h)).toEqual(h);
      expect(memberHistorySchema.safeParse(history(h)).success).toBe(true);
    }
    expect(healthy().quorum.sentence).toBe('3 of 3 voters serving; tolerates 1 failure');
    // A dead follower is missing from the leader's count for the reason its own alert gives: no second alert.
    expect(oneDown().alerts.map((a) => a.id)).toEqual(['at-edge', 'down:127.0.0.1:2193']);
    expect(oneSyncing().alerts.map((a) => a.id)).toEqual(['followers-not-synced']);
  });
  it('sessions and watches', () => {
    expect(sessionsAnswerSchema.safeParse(sessions()).success).toBe(true);
    expect(watchesAnswerSchema.safeParse(watches(true)).success).toBe(true);
    const kinds = sessions().sessions.flatMap((s) => s.flags.map((f) => f.kind));
    expect(kinds).toEqual(expect.arrayContaining(['long-timeout', 'silent-near-timeout', 'no-connection']));
  });
});

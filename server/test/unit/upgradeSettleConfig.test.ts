/** The per-ensemble `upgradeSettleSeconds` setting: optional, bounded, named when wrong, and what a new upgrade settles for. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMINGS, upgradeTimingsSchema } from '@keeper/shared';
import { parseFileConfig } from '../../src/config/fileConfig.js';
import { workflowTimings } from '../../src/upgrades/upgradeRunner.js';

const withSettle = (upgradeSettleSeconds: unknown) => ({ ensembles: [{ name: 'prod', connectionString: 'zk1:2181', upgradeSettleSeconds }] });

describe('upgradeSettleSeconds in the config file', () => {
  it('is kept per ensemble (0 allowed), and absent means the default', () => {
    expect(parseFileConfig(withSettle(60), 'keeper.json').ensembles[0]?.upgradeSettleSeconds).toBe(60);
    expect(parseFileConfig(withSettle(0), 'keeper.json').ensembles[0]?.upgradeSettleSeconds).toBe(0);
    expect(parseFileConfig({ ensembles: [{ name: 'prod', connectionString: 'zk1:2181' }] }, 'keeper.json').ensembles[0]?.upgradeSettleSeconds).toBeUndefined();
  });

  it('refuses what cannot be a settle time, naming the field', () => {
    for (const wrong of [-1, 1.5, '10', 3601]) expect(() => parseFileConfig(withSettle(wrong), 'keeper.json')).toThrow(/ensembles\[0\]\.upgradeSettleSeconds/);
  });
});

describe("a new upgrade's timings", () => {
  const timings = (...args: Parameters<typeof workflowTimings>) => upgradeTimingsSchema.parse(workflowTimings(...args));

  it('settle for the configured time, or 10 s', () => {
    expect(timings('command', { upgradeSettleSeconds: 2 }).settleMs).toBe(2_000);
    expect(timings('command', { upgradeSettleSeconds: 0 }).settleMs).toBe(0);
    expect(timings('command', {})).toEqual(DEFAULT_TIMINGS);
    expect(DEFAULT_TIMINGS.settleMs).toBe(10_000);
  });

  it('give a person restarting by hand 30 min to be seen, and let what startKeeper was given win', () => {
    expect(timings('manual', { upgradeSettleSeconds: 2 })).toMatchObject({ wentDownWithinMs: 30 * 60_000, settleMs: 2_000 });
    expect(timings('sandbox', { upgradeSettleSeconds: 2 }, { settleMs: 1_000 }).settleMs).toBe(1_000);
  });
});

/** The per-ensemble `juteMaxBuffer` setting in the config file: optional, bounded, and reported by field when wrong. */
import { describe, expect, it } from 'vitest';
import { parseFileConfig } from '../../src/config/fileConfig.js';

const withLimit = (juteMaxBuffer: unknown) => ({ ensembles: [{ name: 'prod', connectionString: 'zk1:2181', juteMaxBuffer }] });

describe('juteMaxBuffer in the config file', () => {
  it("is kept per ensemble, and absent means ZooKeeper's default", () => {
    expect(parseFileConfig(withLimit(4_194_304), 'keeper.json').ensembles[0]?.juteMaxBuffer).toBe(4_194_304);
    expect(parseFileConfig({ ensembles: [{ name: 'prod', connectionString: 'zk1:2181' }] }, 'keeper.json').ensembles[0]?.juteMaxBuffer).toBeUndefined();
  });

  it("refuses what cannot be a member's jute.maxbuffer, naming the field", () => {
    expect(() => parseFileConfig(withLimit(1_000), 'keeper.json')).toThrow(/ensembles\[0\]\.juteMaxBuffer/);
    expect(() => parseFileConfig(withLimit(1.5e6 + 0.5), 'keeper.json')).toThrow(/juteMaxBuffer/);
    expect(() => parseFileConfig(withLimit('1048575'), 'keeper.json')).toThrow(/juteMaxBuffer/);
    expect(() => parseFileConfig(withLimit(2 ** 31), 'keeper.json')).toThrow(/juteMaxBuffer/);
  });
});

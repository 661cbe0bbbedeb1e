/** The config file's "limits": validated, carried to KeeperOptions, mapped to the hub and the walk budget. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStartArgs } from '../../src/config/cli.js';
import { parseFileConfig } from '../../src/config/fileConfig.js';
import { hubLimitsFromConfig } from '../../src/hub/hubLimits.js';
import { walkLimitsFromConfig } from '../../src/ops/walkBudget.js';

const ensembles = [{ name: 'a', connectionString: 'zk1:2181' }];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-limits-config-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('config "limits"', () => {
  it('accepts every bound and carries it to the server options', () => {
    const limits = {
      sockets: 100,
      socketsPerIdentity: 5,
      subscriptionsPerSocket: 50,
      subscriptionsPerIdentity: 200,
      subscriptions: 1_000,
      watchedPaths: 500,
      socketBufferKiB: 1_024,
      socketBuffersTotalMiB: 16,
      walks: 2,
      walksReservedForAdmins: 0,
      walksPerIdentity: 1,
      walkReadsPerMinutePerIdentity: 6_000,
      walkReadsPerMinuteForViewers: 12_000,
    };
    const file = path.join(dir, 'keeper.json');
    fs.writeFileSync(file, JSON.stringify({ ensembles, limits }));
    const plan = parseStartArgs(['--config', file], { HOME: '/home/ann', KEEPER_ADMIN_TOKEN: 'a'.repeat(32) });
    if (plan.kind !== 'run') throw new Error('expected a run plan');
    expect(plan.keeper.limits).toEqual(limits);
    expect(hubLimitsFromConfig(plan.keeper.limits)).toMatchObject({
      maxSockets: 100,
      maxSocketsPerIdentity: 5,
      maxSubscriptions: 50,
      maxBufferedBytes: 1_048_576,
      maxBufferedBytesTotal: 16 * 1_048_576,
    });
    expect(walkLimitsFromConfig(plan.keeper.limits)).toEqual({
      maxConcurrentWalks: 2,
      adminReservedWalks: 0,
      walksPerIdentity: 1,
      readsPerMinutePerIdentity: 6_000,
      viewerReadsPerMinute: 12_000,
    });
  });

  it('refuses a zero, a fraction or an unknown bound, naming it', () => {
    expect(() => parseFileConfig({ ensembles, limits: { sockets: 0 } }, '/x.json')).toThrow(/limits\.sockets: Too small/);
    expect(() => parseFileConfig({ ensembles, limits: { walks: 1.5 } }, '/x.json')).toThrow(/limits\.walks/);
    expect(() => parseFileConfig({ ensembles, limits: { socketsPerUser: 3 } }, '/x.json')).toThrow(/Unrecognized key: "socketsPerUser"/);
  });

  it('leaves everything at its default when absent', () => {
    expect(parseFileConfig({ ensembles }, '/x.json').limits).toBeUndefined();
  });
});

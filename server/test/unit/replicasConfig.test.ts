/**
 * The "replicas" config (docs/replicas.md): parsed and refused with the field's path; the secret
 * comes from the environment only; without it nothing changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseStartArgs } from '../../src/config/cli.js';
import { parseFileConfig } from '../../src/config/fileConfig.js';
import { checkReplicasOptions, replicaAcl, replicaRootProblem } from '../../src/replicas/replicaConfig.js';

const SECRET = 'x'.repeat(40);
const ensembles = [{ name: 'home', connectionString: 'zk1:2181' }];

function problems(json: unknown): string {
  try {
    parseFileConfig(json, '/etc/keeper.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('the replicas config', () => {
  let dir: string;
  const write = (content: unknown) => {
    const file = path.join(dir, `c${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(file, JSON.stringify(content));
    return file;
  };
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-replicas-config-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('takes the defaults and the secret from KEEPER_CLUSTER_SECRET', () => {
    const file = write({ ensembles, replicas: { stateEnsemble: 'home' } });
    const plan = parseStartArgs(['--config', file], { HOME: '/h', KEEPER_CLUSTER_SECRET: SECRET });
    expect(plan.kind === 'run' && plan.keeper.replicas).toEqual({ stateEnsemble: 'home', root: '/keeper/replicas', secret: SECRET, sharedPolling: false });
  });

  it('reads the secret from the variable secretEnv names, never from the file', () => {
    const file = write({ ensembles, replicas: { stateEnsemble: 'home', secretEnv: 'MY_SECRET', root: '/ops/keeper', sharedPolling: true } });
    const plan = parseStartArgs(['--config', file], { HOME: '/h', MY_SECRET: SECRET, KEEPER_CLUSTER_SECRET: 'y'.repeat(40) });
    expect(plan.kind === 'run' && plan.keeper.replicas).toEqual({ stateEnsemble: 'home', root: '/ops/keeper', secret: SECRET, sharedPolling: true });
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', secret: SECRET } })).toMatch(/replicas: Unrecognized key/);
  });

  it('takes the bounds of what the home ensemble keeps, within their ranges', () => {
    const file = write({ ensembles, replicas: { stateEnsemble: 'home', maxSessions: 2_000, auditWindow: 500 } });
    const plan = parseStartArgs(['--config', file], { HOME: '/h', KEEPER_CLUSTER_SECRET: SECRET });
    expect(plan.kind === 'run' && plan.keeper.replicas).toMatchObject({ maxSessions: 2_000, auditWindow: 500 });
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', auditWindow: 99 } })).toMatch(/replicas\.auditWindow/);
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', auditWindow: 100_001 } })).toMatch(/replicas\.auditWindow/);
  });

  it('refuses a missing or short secret, naming the variable', () => {
    const file = write({ ensembles, replicas: { stateEnsemble: 'home' } });
    expect(() => parseStartArgs(['--config', file], { HOME: '/h' })).toThrow(/KEEPER_CLUSTER_SECRET.*at least 32/);
    expect(() => parseStartArgs(['--config', file], { HOME: '/h', KEEPER_CLUSTER_SECRET: 'short' })).toThrow(ConfigError);
  });

  it('refuses a home ensemble that is not configured, and roots Keeper may not use', () => {
    expect(problems({ ensembles, replicas: { stateEnsemble: 'prod' } })).toMatch(/replicas\.stateEnsemble: "prod" is not one of the configured ensembles/);
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', root: '/keeper' } })).toMatch(/replicas\.root: must not be \/keeper/);
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', root: '/' } })).toMatch(/replicas\.root/);
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', root: '/zookeeper/x' } })).toMatch(/replicas\.root/);
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', root: 'keeper' } })).toMatch(/replicas\.root/);
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', secretEnv: 'lower-case' } })).toMatch(/replicas\.secretEnv/);
    expect(replicaRootProblem('/keeper/replicas')).toBeNull();
  });

  it('is absent without "replicas": nothing changes', () => {
    const plan = parseStartArgs(['--config', write({ ensembles })], { HOME: '/h', KEEPER_CLUSTER_SECRET: SECRET });
    expect(plan.kind === 'run' && 'replicas' in plan.keeper).toBe(false);
  });

  it('checks what startKeeper is given directly (tests and embedders skip the CLI)', () => {
    const ok = { stateEnsemble: 'home', root: '/keeper/replicas', secret: SECRET, sharedPolling: false };
    expect(() => checkReplicasOptions(ok, ['home'])).not.toThrow();
    expect(() => checkReplicasOptions({ ...ok, stateEnsemble: 'x' }, ['home'])).toThrow(/not a configured ensemble/);
    expect(() => checkReplicasOptions({ ...ok, root: '/keeper' }, ['home'])).toThrow(/must not be \/keeper/);
    expect(() => checkReplicasOptions({ ...ok, secret: 'short' }, ['home'])).toThrow(/at least 32/);
  });

  it("gives the root the replicas' digest identity only, with every permission", () => {
    // ZooKeeper's DigestAuthenticationProvider: base64(sha1("keeper:<secret>")).
    expect(replicaAcl('secret')).toEqual([{ scheme: 'digest', id: 'keeper:fVdK2HwI35pFaNBBBjXpQ3fU3iQ=', permissions: 31 }]);
  });
});

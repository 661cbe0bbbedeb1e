/**
 * The "replicas" config (docs/operating/replicas.md): parsed and refused with the field's path; the secret
 * comes from the environment only; without it nothing changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseStartArgs } from '../../src/config/cli.js';
import { parseFileConfig } from '../../src/config/fileConfig.js';
import { checkReplicasOptions, MAX_REPLICA_IDENTITIES, replicaIdentityProblem, replicaRootProblem } from '../../src/config/replicasConfig.js';
import { replicaAcl } from '../../src/replicas/replicaAcl.js';
import { describeAcl, identitiesNotPresented, rootAclChange } from '../../src/replicas/rootAcl.js';

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

  it('takes up to 8 identities, each x509:<DN> as ZooKeeper writes it or sasl:<principal>, and adds one cdrwa entry per identity', () => {
    const identities = ['x509:CN=keeper,OU=ops', 'sasl:keeper@EXAMPLE.COM'];
    const file = write({ ensembles, replicas: { stateEnsemble: 'home', identities } });
    const plan = parseStartArgs(['--config', file], { HOME: '/h', KEEPER_CLUSTER_SECRET: SECRET });
    expect(plan.kind === 'run' && plan.keeper.replicas).toMatchObject({ identities });
    expect(replicaAcl('secret', identities)).toEqual([
      { scheme: 'digest', id: 'keeper:fVdK2HwI35pFaNBBBjXpQ3fU3iQ=', permissions: 31 },
      { scheme: 'x509', id: 'CN=keeper,OU=ops', permissions: 31 },
      { scheme: 'sasl', id: 'keeper@EXAMPLE.COM', permissions: 31 },
    ]);
    for (const ok of ['x509:CN=keeper', 'x509:OU=ops,CN=keeper\\, the second', 'sasl:keeper', 'sasl:zk/host.example.com@EXAMPLE.COM'])
      expect(replicaIdentityProblem(ok), ok).toBeNull();
    for (const bad of [
      'CN=keeper',
      'digest:keeper:abc',
      'world:anyone',
      'x509:',
      'x509:keeper',
      'x509: CN=keeper',
      'x509:CN=keeper, OU=ops',
      'sasl:',
      'sasl:a b',
      'sasl:a@b@c',
      `sasl:${'k'.repeat(600)}`,
      'sasl:ke\neper',
    ])
      expect(replicaIdentityProblem(bad), bad).not.toBeNull();
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', identities: ['x509:CN=a, OU=b'] } })).toMatch(
      /replicas\.identities\[0\]: must be written as ZooKeeper writes the DN/,
    );
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', identities: ['sasl:a', 'sasl:a'] } })).toMatch(
      /replicas\.identities: lists an identity twice/,
    );
    const nine = Array.from({ length: MAX_REPLICA_IDENTITIES + 1 }, (_, i) => `sasl:keeper${i}`);
    expect(problems({ ensembles, replicas: { stateEnsemble: 'home', identities: nine } })).toMatch(/replicas\.identities/);
    const ok = { stateEnsemble: 'home', root: '/keeper/replicas', secret: SECRET, sharedPolling: false };
    expect(() => checkReplicasOptions({ ...ok, identities: nine }, ['home'])).toThrow(/at most 8/);
    expect(() => checkReplicasOptions({ ...ok, identities: ['ip:127.0.0.1'] }, ['home'])).toThrow(/x509:<subject DN> or sasl:<principal>/);
    expect(() => checkReplicasOptions({ ...ok, identities: ['sasl:a', 'sasl:a'] }, ['home'])).toThrow(/twice/);
    expect(() => checkReplicasOptions({ ...ok, identities }, ['home'])).not.toThrow();
  });

  it("tells a root whose identities changed (same digest, other x509/sasl entries) from one that is not the replicas' at all", () => {
    const ours = replicaAcl(SECRET, ['x509:CN=keeper']);
    expect(rootAclChange([...ours].reverse(), ours)).toBe('same');
    expect(rootAclChange(replicaAcl(SECRET), ours)).toBe('identities');
    expect(rootAclChange(replicaAcl(SECRET, ['sasl:keeper', 'x509:CN=old']), ours)).toBe('identities');
    expect(rootAclChange(replicaAcl(SECRET, ['sasl:keeper']), replicaAcl(SECRET))).toBe('identities');
    // Another secret, a weaker permission, a world entry or an ip entry: not ours to change.
    expect(rootAclChange(replicaAcl('y'.repeat(40), ['x509:CN=keeper']), ours)).toBe('foreign');
    expect(rootAclChange([ours[0]!, { scheme: 'x509', id: 'CN=keeper', permissions: 1 }], ours)).toBe('foreign');
    expect(rootAclChange([ours[0]!, { scheme: 'world', id: 'anyone', permissions: 31 }], ours)).toBe('foreign');
    expect(rootAclChange([{ scheme: 'ip', id: '127.0.0.1', permissions: 31 }], ours)).toBe('foreign');
    // Said in zkCli's words, this secret's hash not repeated.
    expect(describeAcl(ours, ours[0])).toBe('digest:keeper:<from the cluster secret>:cdrwa, x509:CN=keeper:cdrwa');
    expect(describeAcl([{ scheme: 'world', id: 'anyone', permissions: 1 }], ours[0])).toBe('world:anyone:r');
  });

  it("says which listed identities this replica's state session does not present (it then gets in by the digest only)", () => {
    const seen = [
      { scheme: 'x509', id: 'OU=ops,CN=keeper' },
      { scheme: 'sasl', id: 'keeper' },
      { scheme: 'ip', id: '127.0.0.1' },
    ];
    expect(identitiesNotPresented(['x509:OU=ops,CN=keeper', 'x509:CN=other', 'sasl:keeper'], seen)).toEqual([]);
    expect(identitiesNotPresented(['x509:CN=keeper,OU=ops'], seen)).toEqual([
      "replicas.identities lists x509:CN=keeper,OU=ops, but ZooKeeper sees this replica as x509:OU=ops,CN=keeper; it gets in by the digest only (write the identity as ZooKeeper's whoami shows it)",
    ]);
    expect(identitiesNotPresented(['sasl:keeper@EXAMPLE.COM'], [{ scheme: 'ip', id: '127.0.0.1' }])).toEqual([
      "replicas.identities lists sasl:keeper@EXAMPLE.COM, but this replica's state session has no sasl identity (ZooKeeper sees it as ip:127.0.0.1); it gets in by the digest only",
    ]);
  });
});

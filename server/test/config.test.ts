import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseStartArgs, type StartPlan } from '../src/config/cli.js';
import { parseConnectionString } from '../src/config/connectionString.js';
import { parseFileConfig } from '../src/config/fileConfig.js';

const ENV = { HOME: '/home/ann' };

function run(argv: string[], env: Record<string, string> = ENV, cwd = '/work') {
  const plan = parseStartArgs(argv, env, cwd);
  if (plan.kind !== 'run') throw new Error('expected a run plan');
  return plan;
}

function failure(argv: string[], env: Record<string, string> = ENV, cwd = '/work'): string {
  try {
    parseStartArgs(argv, env, cwd);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConnectionString', () => {
  const ok = (s: string) => {
    const r = parseConnectionString(s);
    if (!r.ok) throw new Error(r.reason);
    return r.value;
  };
  const reason = (s: string) => {
    const r = parseConnectionString(s);
    if (r.ok) throw new Error(`accepted ${s}`);
    return r.reason;
  };

  it('parses a host list with a chroot', () => {
    expect(ok('zk1.example.com:2181,10.0.0.2:2182/apps/keeper')).toEqual({
      servers: [
        { host: 'zk1.example.com', port: 2181 },
        { host: '10.0.0.2', port: 2182 },
      ],
      chroot: '/apps/keeper',
      normalized: 'zk1.example.com:2181,10.0.0.2:2182/apps/keeper',
    });
  });

  it('normalises like ZooKeeper: default port 2181, spaces dropped, "/" is no chroot', () => {
    expect(ok(' zk1 , zk2:2200 ').normalized).toBe('zk1:2181,zk2:2200');
    expect(ok('127.0.0.1:2191/')).toMatchObject({ chroot: null, normalized: '127.0.0.1:2191' });
    expect(ok('zk_1:2181').servers[0]!.host).toBe('zk_1');
  });

  it('refuses what the client cannot connect to, saying where', () => {
    expect(reason('')).toMatch(/empty/);
    expect(reason('zk1:2181,,zk2:2181')).toMatch(/server 2 is empty/);
    expect(reason('zk1:99999')).toMatch(/server 1 .*port must be a number from 1 to 65535/);
    expect(reason('zk1:abc')).toMatch(/port/);
    expect(reason('zk1:0')).toMatch(/port/);
    expect(reason('zk one:2181')).toMatch(/not a valid host name/);
    expect(reason('[::1]:2181')).toMatch(/IPv6/);
    expect(reason('::1')).toMatch(/IPv6/);
    expect(reason('zk://zk1:2181')).toMatch(/without a scheme/);
  });

  it('checks the chroot with ZooKeeper path rules', () => {
    expect(reason('zk1:2181/a//b')).toMatch(/chroot "\/a\/\/b": .*empty segment/);
    expect(reason('zk1:2181/a/')).toMatch(/must not end with/);
    expect(reason('zk1:2181/a/../b')).toMatch(/relative segment/);
    expect(reason('zk1:2181/a\u0001')).toMatch(/invalid character/);
  });
});

describe('parseStartArgs without an ensemble: the sandbox', () => {
  it('uses the defaults and a state dir outside the repository', () => {
    expect(run([])).toEqual({
      kind: 'run',
      keeper: { host: '127.0.0.1', port: 8080, ensembles: [], auth: { stateDir: '/home/ann/.local/state/keeper/server' } },
      sandbox: { portOffset: 0, stateDir: '/home/ann/.local/state/keeper/sandbox', ensembleName: 'default' },
    } satisfies StartPlan);
  });

  it('honours XDG_STATE_HOME, --state-dir (relative to cwd), --sandbox-port-offset and --name', () => {
    expect(run([], { ...ENV, XDG_STATE_HOME: '/var/state' }).sandbox?.stateDir).toBe('/var/state/keeper/sandbox');
    expect(run(['--state-dir', 'tmp/sb', '--sandbox-port-offset=100', '--name', 'local']).sandbox).toEqual({
      portOffset: 100,
      stateDir: '/work/tmp/sb',
      ensembleName: 'local',
    });
  });

  it('starts the sandbox on the older ZooKeeper build with --from-older-build', () => {
    expect(run(['--from-older-build']).sandbox?.fromOlderBuild).toBe(true);
    expect(run([]).sandbox).not.toHaveProperty('fromOlderBuild');
    expect(failure(['--zk', 'zk1:2181', '--from-older-build'])).toMatch(/--from-older-build is for the local sandbox; it has no effect with --zk/);
  });

  it('starts a production-like sandbox with --secure, and only the sandbox', () => {
    expect(run(['--secure']).sandbox?.secure).toBe(true);
    expect(run([]).sandbox).not.toHaveProperty('secure');
    expect(failure(['--zk', 'zk1:2181', '--secure'])).toMatch(/--secure is for the local sandbox; it has no effect with --zk/);
  });

  it('rejects bad sandbox values', () => {
    expect(failure(['--sandbox-port-offset=-5'])).toMatch(/--sandbox-port-offset must be an integer/);
    expect(failure(['--sandbox-port-offset', 'x'])).toMatch(/--sandbox-port-offset must be an integer from 0/);
    expect(failure(['--state-dir', ' '])).toMatch(/--state-dir must not be empty/);
    expect(failure(['--name', 'my cluster'])).toMatch(/--name must be 1-63 letters/);
  });
});

describe('parseStartArgs with --zk / KEEPER_ZK', () => {
  it('configures one ensemble with the normalised connection string', () => {
    expect(run(['--zk', 'zk1,zk2:2182/keeper', '--name', 'prod'])).toEqual({
      kind: 'run',
      keeper: {
        host: '127.0.0.1',
        port: 8080,
        ensembles: [{ name: 'prod', connectionString: 'zk1:2181,zk2:2182/keeper' }],
        auth: { stateDir: '/home/ann/.local/state/keeper/server' },
      },
      sandbox: null,
    });
    expect(run([], { ...ENV, KEEPER_ZK: '127.0.0.1:2181' }).keeper.ensembles).toEqual([{ name: 'default', connectionString: '127.0.0.1:2181' }]);
  });

  it('names the source of a bad connection string', () => {
    expect(failure(['--zk', 'zk1:2181/a//b'])).toMatch(/^--zk: chroot/);
    expect(failure([], { ...ENV, KEEPER_ZK: 'zk1:x' })).toMatch(/^KEEPER_ZK: server 1/);
    expect(failure(['--zk', ''])).toMatch(/^--zk: connection string is empty/);
  });

  it('refuses sandbox options that would be silently ignored', () => {
    expect(failure(['--zk', 'zk1:2181', '--state-dir', '/x'])).toMatch(/--state-dir is for the local sandbox; it has no effect with --zk/);
    expect(failure(['--sandbox-port-offset', '5'], { ...ENV, KEEPER_ZK: 'zk1' })).toMatch(/KEEPER_ZK/);
  });

  it('lets the command line win over the environment', () => {
    expect(run(['--zk', 'a:1'], { ...ENV, KEEPER_ZK: 'b:2' }).keeper.ensembles[0]!.connectionString).toBe('a:1');
  });
});

describe('parseStartArgs: host and port', () => {
  it('takes --port/--host over PORT/HOST over the defaults', () => {
    expect(run(['--port', '9000', '--host', '0.0.0.0'], { ...ENV, PORT: '7000', HOST: '::' }).keeper).toMatchObject({ port: 9000, host: '0.0.0.0' });
    expect(run([], { ...ENV, PORT: '7000', HOST: '::' }).keeper).toMatchObject({ port: 7000, host: '::' });
    expect(run(['--port=0']).keeper.port).toBe(0);
  });

  it('rejects bad ports, naming the option or variable', () => {
    expect(failure(['--port', '70000'])).toBe('--port must be an integer from 0 to 65535, got "70000"');
    expect(failure(['--port', '80a'])).toMatch(/^--port must be/);
    expect(failure([], { ...ENV, PORT: 'eighty' })).toMatch(/^PORT must be/);
  });
});

describe('parseStartArgs: options themselves', () => {
  it('returns the usage for --help and -h', () => {
    const plan = parseStartArgs(['--help'], ENV);
    expect(plan.kind).toBe('help');
    if (plan.kind === 'help') expect(plan.text).toContain('--zk <host:port,...[/chroot]>');
    expect(parseStartArgs(['-h'], ENV).kind).toBe('help');
  });

  it('rejects unknown options, stray arguments and a missing value', () => {
    expect(failure(['--prot', '80'])).toMatch(/^Unknown option '--prot'.*\. See --help\.$/);
    expect(failure(['zk1:2181'])).toMatch(/positional argument/i);
    expect(failure(['--zk'])).toMatch(/--zk/);
  });

  it('refuses two ensemble sources at once', () => {
    expect(failure(['--zk', 'a:1', '--config', 'x.json'])).toMatch(/either --zk or --config/);
    expect(failure([], { ...ENV, KEEPER_ZK: 'a:1', KEEPER_CONFIG: 'x.json' })).toMatch(/either KEEPER_ZK or KEEPER_CONFIG/);
  });
});

describe('config files', () => {
  let dir: string;
  const write = (name: string, content: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-config-test-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const full = {
    ensembles: [
      {
        name: 'prod',
        connectionString: 'zk1:2181, zk2:2181/app',
        auth: [{ scheme: 'digest', credential: 'ops:s3cr:et' }],
        members: [
          { host: 'zk1', clientPort: 2181, adminPort: 8080 },
          { host: 'zk2', clientPort: 2181 },
        ],
        sessionTimeoutMs: 30000,
      },
      { name: 'staging', connectionString: 'stage-zk:2181' },
    ],
    host: '0.0.0.0',
    port: 9090,
    webDist: 'dist',
  };

  it('loads ensembles, host, port and webDist (relative to the file)', () => {
    write('keeper.json', full);
    const plan = run(['--config', 'keeper.json'], ENV, dir);
    expect(plan.sandbox).toBeNull();
    expect(plan.keeper).toEqual({
      host: '0.0.0.0',
      port: 9090,
      webDist: path.join(dir, 'dist'),
      ensembles: [{ ...full.ensembles[0], connectionString: 'zk1:2181,zk2:2181/app' }, full.ensembles[1]],
      auth: { stateDir: '/home/ann/.local/state/keeper/server' },
    });
  });

  it('is found through KEEPER_CONFIG, and CLI/env host and port win over it', () => {
    const file = write('keeper2.json', full);
    expect(run(['--port', '1234'], { ...ENV, KEEPER_CONFIG: file, HOST: 'localhost' }).keeper).toMatchObject({
      port: 1234,
      host: 'localhost',
    });
  });

  it('names every bad field with its path', () => {
    const bad = {
      ensembles: [
        { name: 'ok', connectionString: 'zk1:2181' },
        {
          name: 'bad one',
          connectionString: 'zk1:2181/a//b',
          auth: [{ scheme: 'sasl', credential: 'nocolon' }],
          members: [{ host: 'zk1', clientPort: 0 }],
          sessionTimeoutMs: 1.5,
          colour: 'red',
        },
      ],
      port: 'eighty',
    };
    let message = '';
    try {
      parseFileConfig(bad, '/etc/keeper.json');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^invalid config \/etc\/keeper.json:/);
    expect(message).toMatch(/ensembles\[1\]\.name: must be 1-63 letters/);
    expect(message).toMatch(/ensembles\[1\]\.connectionString: chroot "\/a\/\/b"/);
    expect(message).toMatch(/ensembles\[1\]\.auth\[0\]\.scheme:/);
    expect(message).toMatch(/ensembles\[1\]\.auth\[0\]\.credential: must be "user:password"/);
    expect(message).toMatch(/ensembles\[1\]\.members\[0\]\.clientPort:/);
    expect(message).toMatch(/ensembles\[1\]\.sessionTimeoutMs:/);
    expect(message).toMatch(/ensembles\[1\]: Unrecognized key.*colour/);
    expect(message).toMatch(/\bport:/);
  });

  it('refuses two ensembles with the same name', () => {
    const twins = {
      ensembles: [
        { name: 'a', connectionString: 'zk1' },
        { name: 'a', connectionString: 'zk2' },
      ],
    };
    expect(() => parseFileConfig(twins, 'c.json')).toThrow(/ensembles\[1\]\.name: duplicate name "a"/);
  });

  it('requires at least one ensemble', () => {
    expect(() => parseFileConfig({ ensembles: [] }, 'c.json')).toThrow(/ensembles: must list at least one ensemble/);
    expect(() => parseFileConfig({}, 'c.json')).toThrow(/ensembles:/);
  });

  it('reports unreadable and malformed files, and --name next to a file', () => {
    expect(failure(['--config', 'missing.json'], ENV, dir)).toMatch(/^cannot read config .*missing.json/);
    write('broken.json', '{ "ensembles": [ ');
    expect(failure(['--config', 'broken.json'], ENV, dir)).toMatch(/^config .*broken.json is not valid JSON/);
    write('k3.json', full);
    expect(failure(['--config', 'k3.json', '--name', 'x'], ENV, dir)).toMatch(/name ensembles in the config file/);
  });

  it('reads single sign-on, grants, users with groups, the public URL and the audit on stdout', () => {
    const team = {
      ensembles: [{ name: 'prod', connectionString: 'zk1:2181' }],
      publicUrl: 'https://keeper.example.com/',
      audit: { stdout: true },
      auth: {
        oidc: { issuer: 'https://id.example.com/realms/ops', clientId: 'keeper', clientSecretEnv: 'MY_OIDC_SECRET', groupsClaim: 'roles' },
        grants: [
          { group: 'zk-admins', role: 'admin' },
          { group: 'billing', role: 'writer', ensemble: 'prod', paths: ['/app/billing'] },
        ],
        users: [{ name: 'bob', passwordHash: `$2b$12$${'a'.repeat(53)}`, groups: ['billing'] }],
      },
    };
    write('team.json', team);
    const keeper = run(['--config', 'team.json'], { ...ENV, MY_OIDC_SECRET: 'the-secret' }, dir).keeper;
    expect(keeper.publicUrl).toBe('https://keeper.example.com');
    expect(keeper.audit).toEqual({ stdout: true });
    expect(keeper.auth).toMatchObject({
      oidc: {
        issuer: 'https://id.example.com/realms/ops',
        clientId: 'keeper',
        clientSecret: 'the-secret',
        scopes: ['openid', 'profile', 'email', 'groups'],
        groupsClaim: 'roles',
        name: 'id.example.com',
      },
      grants: team.auth.grants,
      users: [{ name: 'bob', groups: ['billing'] }],
    });
    // The secret's variable must be set when the config names it; KEEPER_AUDIT_STDOUT and KEEPER_PUBLIC_URL win over the file.
    expect(failure(['--config', 'team.json'], ENV, dir)).toMatch(/auth\.oidc\.clientSecretEnv names MY_OIDC_SECRET, which is not set/);
    const env = { ...ENV, MY_OIDC_SECRET: 'x', KEEPER_AUDIT_STDOUT: 'false', KEEPER_PUBLIC_URL: 'https://other.example.com' };
    expect(run(['--config', 'team.json'], env, dir).keeper).toMatchObject({ audit: { stdout: false }, publicUrl: 'https://other.example.com' });
  });

  it('refuses grants and users it could not honour, naming the field', () => {
    const base = { ensembles: [{ name: 'prod', connectionString: 'zk1:2181' }] };
    expect(() => parseFileConfig({ ...base, auth: { grants: [{ group: 'g', role: 'writer', ensemble: 'prod', paths: ['/a/'] }] } }, 'c.json')).toThrow(
      /auth\.grants\[0\]\.paths\[0\]: must be a znode path/,
    );
    expect(() => parseFileConfig({ ...base, auth: { grants: [{ group: 'g', role: 'writer', ensemble: 'prod' }] } }, 'c.json')).toThrow(
      /auth\.grants\[0\]\.paths/,
    );
    expect(() => parseFileConfig({ ...base, auth: { users: [{ name: 'x', passwordHash: `$2b$12$${'a'.repeat(53)}` }] } }, 'c.json')).toThrow(
      /auth\.users\[0\]: needs a "role" or "groups"/,
    );
    expect(() => parseFileConfig({ ...base, auth: { oidc: { issuer: 'not a url', clientId: 'k' } } }, 'c.json')).toThrow(/auth\.oidc\.issuer/);
    expect(() => parseFileConfig({ ...base, publicUrl: 'https://k.example.com/path' }, 'c.json')).toThrow(/publicUrl: must be scheme:\/\/host/);
  });
});

describe('metrics access', () => {
  const run = (env: Record<string, string>) => {
    const plan = parseStartArgs(['--zk', 'zk1:2181'], env, '/tmp');
    return plan.kind === 'run' ? plan.keeper.metrics : undefined;
  };
  it('is left to the server (loopback) unless configured', () => {
    expect(run({})).toBeUndefined();
  });
  it('takes KEEPER_METRICS and a token from KEEPER_METRICS_TOKEN, refusing token without one', () => {
    expect(run({ KEEPER_METRICS: 'off' })).toEqual({ access: 'off' });
    expect(run({ KEEPER_METRICS: 'token', KEEPER_METRICS_TOKEN: 'scrape-token-0123456789' })).toEqual({ access: 'token', token: 'scrape-token-0123456789' });
    expect(() => run({ KEEPER_METRICS: 'token' })).toThrow(/needs the token in KEEPER_METRICS_TOKEN/);
    expect(() => run({ KEEPER_METRICS: 'open' })).toThrow(/off, loopback or token/);
  });
});

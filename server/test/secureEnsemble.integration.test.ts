/**
 * Keeper against a TLS-only, SASL-required 3-member ensemble (no plain client port at all;
 * sessionRequireClientSASLAuth=true, so a session that sent anything before authenticating
 * would be closed by the members): the identity ZooKeeper sees, the member poller over TLS, a
 * znode only Keeper's SASL identity may read, and the FAQ's faults as the plain tests have them
 * (leader killed, forced expiry, a frozen member), each with SASL done again and the identity
 * asked again. A third-party client, Java's zkCli over TLS and SASL, writes what Keeper shows.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import zookeeper from 'node-zookeeper-client';
import { membersResponseSchema } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { EnsembleConfig } from '../src/config/types.js';
import type { ZkGateway } from '../src/zk/gateway.js';
import { zkCli } from '../../scripts/lib/zkcli/index.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectSecure, forceExpireSecure } from './support/secureClient.js';
import type { RawClient } from './support/rawClient.js';
import { RecordingListener } from './support/recordingListener.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

const SESSION_TIMEOUT_MS = 6_000;
const USERS = { keeper: 'keeper-secret-1', billing: 'billing-secret-2' };

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let config: EnsembleConfig;
let gateway: ZkGateway;
let other: RawClient;

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${keeper.url}${path}`);
  return { status: res.status, body: await res.json() };
}

function memberId(member: string | null): number {
  const port = Number(member?.split(':')[1]);
  const found = ensemble.members.find((m) => m.clientPort === port);
  if (!found) throw new Error(`console is not on a sandbox member (${member})`);
  return found.id;
}

/** Another session as `billing`, who owns the nodes only billing may read. */
function billingConfig(): Pick<EnsembleConfig, 'connectionString' | 'tls' | 'sasl'> {
  const passwordEnv = 'KEEPER_TEST_BILLING_PASSWORD';
  process.env[passwordEnv] = USERS.billing;
  return {
    connectionString: config.connectionString,
    ...(config.tls ? { tls: config.tls } : {}),
    sasl: { mechanism: 'DIGEST-MD5', username: 'billing', passwordEnv },
  };
}

const identities = () => gateway.session.connection?.identity?.map((i) => `${i.scheme}:${i.id}`) ?? [];

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.secureEnsembleTest, { secure: { saslUsers: USERS } });
  config = ensembleConfigOf(ensemble);
  keeper = await startKeeper(
    { host: '127.0.0.1', port: 0, ensembles: [config] },
    {
      logger: testLogger,
      gatewayDefaults: { sessionTimeoutMs: SESSION_TIMEOUT_MS, requestDeadlineMs: 5_000 },
      ensembleDefaults: { pollIntervalMs: 1_000, maxBackoffMs: 2_000 },
    },
  );
  gateway = keeper.gateways.get('it')!;
  other = await connectSecure(billingConfig());
  await other.mkdirp('/secure');
  await waitFor(() => gateway.session.state === 'connected' && identities().length > 0, { what: 'console connected with an identity', timeoutMs: 30_000 });
}, 180_000);

afterAll(async () => {
  other?.close();
  await keeper?.close();
  await ensemble?.dispose();
}, 60_000);

describe('a TLS-only, SASL-required ensemble', () => {
  it('is reached over TLS with SASL, and says who ZooKeeper sees: sasl, x509 and ip', async () => {
    const list = await get('/api/ensembles');
    const session = list.body.ensembles[0].session;
    expect(session.state).toBe('connected');
    expect(session.connection.tls).toMatch(/^TLS, server certificate checked against .*sandbox-ca\.pem, client certificate presented$/);
    expect(session.connection.sasl).toBe('DIGEST-MD5 as keeper');
    expect(session.connection.warning).toBeNull();
    expect(session.connection.problem).toBeNull();
    expect(session.connection.identity).toEqual(
      expect.arrayContaining([
        { scheme: 'sasl', id: 'keeper' },
        { scheme: 'x509', id: 'CN=keeper' },
        { scheme: 'ip', id: '127.0.0.1' },
      ]),
    );
    // Nothing of the secret leaves the server.
    expect(JSON.stringify(list.body)).not.toContain(USERS.keeper);
  });

  it('polls the TLS-only members over TLS: every one has its role, none is down', async () => {
    await waitFor(
      async () => {
        const res = await get('/api/ensembles/it/members');
        const body = membersResponseSchema.parse(res.body);
        return body.members.length === 3 && body.members.every((m) => ['leader', 'follower'].includes(m.role)) && body.members.some((m) => m.role === 'leader');
      },
      { what: 'three members with roles over TLS', timeoutMs: 20_000 },
    );
    const body = membersResponseSchema.parse((await get('/api/ensembles/it/members')).body);
    expect(body.quorum.votersServing).toBe(3);
  });

  it('reads a znode only its SASL identity may read, and is refused one only billing may read', async () => {
    const keeperOnly = [new zookeeper.ACL(31, new zookeeper.Id('sasl', 'keeper'))];
    const billingOnly = [new zookeeper.ACL(31, new zookeeper.Id('sasl', 'billing'))];
    const create = (path: string, acl: zookeeper.ACL[]) =>
      new Promise<void>((resolve, reject) =>
        other.client.create(path, Buffer.from('secret'), acl, zookeeper.CreateMode.PERSISTENT, (e) => (e ? reject(e) : resolve())),
      );
    await create('/secure/keeper-only', keeperOnly);
    await create('/secure/billing-only', billingOnly);
    const mine = await waitFor(async () => {
      const res = await get('/api/ensembles/it/znodes/secure/keeper-only');
      return res.status === 200 ? res.body : null;
    });
    expect(mine.data.value).toBe('secret');
    const theirs = await get('/api/ensembles/it/znodes/secure/billing-only');
    expect(theirs.status).toBe(403);
    expect(theirs.body.error.code).toBe('NO_AUTH');
    // billing itself could not read keeper's node: the ACL is what decides, not the TLS link.
    await expect(other.get('/secure/keeper-only')).rejects.toMatchObject({ name: 'NO_AUTH' });
  });

  it('shows the sessions on every member (cons over TLS) and a lock directory with its contenders, as on the sandbox', async () => {
    // Two kazoo-named contenders of another client's lock: the holder and one waiter.
    await other.mkdirp('/secure/locks/job');
    for (const id of ['a', 'b']) await other.create(`/secure/locks/job/${id.repeat(32)}__lock__`, '', zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL);
    const lock = await waitFor(
      async () => {
        const res = await get('/api/ensembles/it/locks/secure/locks/job');
        return res.status === 200 && res.body.lock.contenders.length === 2 ? res.body.lock : null;
      },
      { what: 'the lock directory with its two contenders', timeoutMs: 20_000, intervalMs: 300 },
    );
    expect(lock.contenders.map((c: { holding: boolean }) => c.holding)).toEqual([true, false]);
    // Keeper's session and the other client's, gathered from every member over TLS (no gap).
    await get('/api/ensembles/it/sessions?refresh=true');
    const sessions = await waitFor(
      async () => {
        const res = await get('/api/ensembles/it/sessions');
        return res.status === 200 && res.body.gatheredAt !== null && res.body.sessions.length >= 2 ? res.body : null;
      },
      { what: 'the sessions gathered', timeoutMs: 20_000, intervalMs: 300 },
    );
    expect(sessions.gaps).toEqual([]);
    const tlsPorts = ensemble.members.map((m) => `:${m.clientPort}`);
    expect(sessions.sessions.every((x: { member: string }) => tlsPorts.some((p) => x.member.endsWith(p)))).toBe(true);
  });

  it('shows a write by a third-party client (zkCli over TLS and SASL) live', async () => {
    const listener = new RecordingListener();
    await other.create('/secure/from-zkcli', 'before');
    const stop = gateway.watches.watch('/secure/from-zkcli', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    const member = ensemble.members[0]!;
    const run = await zkCli(`${member.host}:${member.clientPort}`, ['set', '/secure/from-zkcli', 'written-by-zkcli'], ensemble.security!, {
      user: 'billing',
      password: USERS.billing,
    });
    expect(run.output).toContain('SaslAuthenticated');
    await waitFor(() => listener.text === 'written-by-zkcli', { what: 'zkCli write seen', timeoutMs: 10_000 });
    stop();
  }, 90_000);
});

describe('faults on a secured ensemble', () => {
  beforeEach(async () => {
    other.close();
    other = await connectSecure(billingConfig());
  });

  it('survives the leader being killed: same session, SASL done again on the new member, watches still fire', async () => {
    const listener = new RecordingListener();
    await other.create('/secure/leader', 'before');
    const stop = gateway.watches.watch('/secure/leader', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    const sessionId = gateway.session.sessionId;
    const leader = (await ensemble.leaderId()) as number;
    await ensemble.killMember(leader);
    await waitFor(async () => (await ensemble.leaderId()) !== null, { what: 'new leader', timeoutMs: 30_000 });
    await other.set('/secure/leader', 'after');
    await waitFor(() => listener.text === 'after', { what: 'change after leader loss', timeoutMs: 20_000 });
    expect(gateway.session.sessionId).toBe(sessionId);
    await waitFor(() => identities().includes('sasl:keeper'), { what: 'identity asked again' });
    await ensemble.startMember(leader);
    stop();
  }, 90_000);

  it('opens a new session after a forced expiry (over TLS and SASL), re-arms watches and asks whoAmI again', async () => {
    const listener = new RecordingListener();
    await other.create('/secure/expiry', 'before');
    const stop = gateway.watches.watch('/secure/expiry', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    const credentials = gateway.sessionCredentials()!;
    const oldSession = gateway.session.sessionId;
    const opened = gateway.session.sessionsOpened;
    await forceExpireSecure(config, credentials.sessionId, credentials.password);
    await waitFor(() => gateway.session.state === 'connected' && gateway.session.sessionId !== oldSession, { what: 'new session', timeoutMs: 30_000 });
    expect(gateway.session.sessionsOpened).toBe(opened + 1);
    expect(gateway.session.timeline.map((t) => t.state)).toContain('expired');
    await waitFor(() => identities().includes('sasl:keeper'), { what: 'identity on the new session' });
    await other.set('/secure/expiry', 'after');
    await waitFor(() => listener.text === 'after', { what: 'change seen on the new session', timeoutMs: 10_000 });
    stop();
  }, 90_000);

  it('says "unconfirmed" within 3 s of its member freezing, then moves off it with the same session', async () => {
    const listener = new RecordingListener();
    await other.create('/secure/stall', 'before');
    const stop = gateway.watches.watch('/secure/stall', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    await waitFor(() => gateway.session.state === 'connected', { what: 'connected before the freeze' });
    const sessionId = gateway.session.sessionId;
    const hung = memberId(gateway.session.member);
    const pausedAt = Date.now();
    ensemble.pauseMember(hung);
    try {
      await waitFor(() => gateway.session.state === 'unconfirmed', { what: 'unconfirmed', timeoutMs: 5_000 });
      expect(Date.now() - pausedAt).toBeLessThan(3_500);
      await waitFor(() => gateway.session.state === 'connected' && memberId(gateway.session.member) !== hung, {
        what: 'console on another member',
        timeoutMs: SESSION_TIMEOUT_MS + 4_000,
      });
      expect(gateway.session.sessionId).toBe(sessionId);
      const healthy = ensemble.members.filter((m) => m.id !== hung).map((m) => `${m.host}:${m.clientPort}`);
      const writer = await connectSecure({ ...billingConfig(), connectionString: healthy.join(',') });
      await writer.set('/secure/stall', 'after');
      writer.close();
      await waitFor(() => listener.text === 'after', { what: 'change after moving', timeoutMs: 10_000 });
    } finally {
      ensemble.resumeMember(hung);
      stop();
    }
  }, 90_000);
});

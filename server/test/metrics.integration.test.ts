/**
 * GET /metrics on a real ensemble, and a real Prometheus (Debian's `prometheus`, started here on
 * loopback) scraping it with the shipped alerting rules:
 *  - what a scrape says matches what Keeper shows (members serving, the console's session, its
 *    requests to ZooKeeper counted by outcome), and a scrape asks ZooKeeper nothing;
 *  - the door: loopback only by default (a proxied request is refused even from loopback), a bearer
 *    token checked like a sign-in (wrong ones audited and limited), or off;
 *  - killing a member makes ZooKeeperMemberDown fire in Prometheus's own /api/v1/alerts, and not
 *    before the member is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { KEEPER_PORTS } from '../../scripts/sandbox/portOffsets.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { parsePromText, samples } from './support/promText.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';
import { TestBrowser } from './support/wsClient.js';
import { connectRaw } from './support/rawClient.js';

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

const ADMIN_TOKEN = 'metrics-admin-token-0123456789';
const METRICS_TOKEN = 'metrics-scrape-token-0123456789';
const RULES = join(import.meta.dirname, '../../docs/prometheus/keeper-rules.yml');
const PROMETHEUS_PORT = KEEPER_PORTS.prometheusTest;

async function scrape(keeper: RunningKeeper, headers: Record<string, string> = {}) {
  const res = await fetch(`${keeper.url}/metrics`, { headers });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

describe('Prometheus metrics on a real ensemble', () => {
  let ensemble: Ensemble;
  let keeper: RunningKeeper;
  let tokenKeeper: RunningKeeper;
  let offKeeper: RunningKeeper;
  const dirs: string[] = [];
  const stateDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'keeper-metrics-'));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.metricsTest);
    const config = { ...ensembleConfigOf(ensemble, { name: 'prod' }), locks: { roots: ['/metrics-locks'] } };
    const extras = { logger: testLogger, ensembleDefaults: { pollIntervalMs: 1_000, maxBackoffMs: 1_000 } };
    [keeper, tokenKeeper, offKeeper] = await Promise.all([
      startKeeper({ host: '127.0.0.1', port: 0, ensembles: [config], auth: { stateDir: stateDir(), adminToken: ADMIN_TOKEN } }, extras),
      startKeeper(
        {
          host: '127.0.0.1',
          port: 0,
          ensembles: [config],
          auth: { stateDir: stateDir(), adminToken: ADMIN_TOKEN },
          metrics: { access: 'token', token: METRICS_TOKEN },
        },
        { ...extras, rateLimits: { loginFailures: 3 } },
      ),
      startKeeper(
        { host: '127.0.0.1', port: 0, ensembles: [config], auth: { stateDir: stateDir(), adminToken: ADMIN_TOKEN }, metrics: { access: 'off' } },
        extras,
      ),
    ]);
    await waitFor(() => keeper.ensembles.get('prod').poller.current()?.quorum.votersServing === 3, { what: 'three members serving', timeoutMs: 30_000 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([keeper?.close(), tokenKeeper?.close(), offKeeper?.close()]);
    await ensemble?.dispose();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('says what Keeper sees: members up with their roles, the console connected, its ZooKeeper requests by outcome', async () => {
    const prod = keeper.ensembles.get('prod');
    // Keeper reads znodes of its own that may not exist (its ensemble identity marker): count from here.
    const missingBefore =
      samples(parsePromText((await scrape(keeper)).text), 'keeper_zk_requests_total', { ensemble: 'prod', op: 'getData', result: 'NO_NODE' })[0]?.value ?? 0;
    await prod.gateway.getData('/zookeeper/config');
    await expect(prod.gateway.getData('/no/such/node')).rejects.toThrow(/NO_NODE/);

    const { status, text, type } = await scrape(keeper);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const all = parsePromText(text);

    const up = samples(all, 'keeper_member_up', { ensemble: 'prod' });
    expect(up.map((s) => s.labels.member).sort()).toEqual(ensemble.members.map((m) => `${m.host}:${m.clientPort}`).sort());
    expect(up.every((s) => s.value === 1)).toBe(true);
    expect(up.filter((s) => s.labels.role === 'leader')).toHaveLength(1);
    expect(samples(all, 'keeper_quorum_tolerates', { ensemble: 'prod' })[0]?.value).toBe(1);
    expect(samples(all, 'keeper_quorum_can_lose_now', { ensemble: 'prod' })[0]?.value).toBe(1);
    expect(samples(all, 'keeper_console_session_state', { ensemble: 'prod', state: 'connected' })[0]?.value).toBe(1);
    expect(samples(all, 'keeper_console_session_state', { ensemble: 'prod', state: 'expired' })[0]?.value).toBe(0);
    expect(samples(all, 'keeper_zk_requests_total', { ensemble: 'prod', op: 'getData', result: 'ok' })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples(all, 'keeper_zk_requests_total', { ensemble: 'prod', op: 'getData', result: 'NO_NODE' })[0]?.value).toBe(missingBefore + 1);
    expect(samples(all, 'keeper_zk_request_seconds_count', { ensemble: 'prod', op: 'getData' })[0]?.value).toBeGreaterThanOrEqual(2);
    expect(samples(all, 'keeper_browsers_connected')[0]?.value).toBe(0);
    const polledAt = samples(all, 'keeper_member_polled_timestamp_seconds', { ensemble: 'prod' }).map((s) => s.value);
    expect(Math.min(...polledAt)).toBeGreaterThan(Date.now() / 1000 - 10);
    // No per-znode or per-session label anywhere.
    expect(all.some((s) => 'path' in s.labels || 'session' in s.labels || 'sessionId' in s.labels)).toBe(false);
  });

  it("counts the browsers' subscriptions per ensemble and times each live push to every socket", async () => {
    const writer = await connectRaw(ensemble.connectionString);
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const browsers = await Promise.all([TestBrowser.open(keeper.url, { headers }), TestBrowser.open(keeper.url, { headers })]);
    try {
      await writer.create('/metrics-push', 'one');
      for (const b of browsers) await b.subscribed('znode', 'prod', { path: '/metrics-push' });
      await Promise.all(browsers.map((b) => waitFor(() => b.lastZnode('prod', '/metrics-push')?.node.exists, { what: 'the first state' })));
      const before = parsePromText((await scrape(keeper)).text);
      expect(samples(before, 'keeper_subscriptions', { ensemble: 'prod' })[0]?.value).toBe(2);
      expect(samples(before, 'keeper_browsers_connected')[0]?.value).toBe(2);
      const pushedBefore = samples(before, 'keeper_push_seconds_count')[0]?.value ?? 0;

      await writer.set('/metrics-push', 'two');
      const version = (b: TestBrowser) => {
        const node = b.lastZnode('prod', '/metrics-push')?.node;
        return node?.exists ? node.stat.version : -1;
      };
      await Promise.all(browsers.map((b) => waitFor(() => version(b) === 1, { what: 'the change pushed' })));
      const after = parsePromText((await scrape(keeper)).text);
      const pushed = (samples(after, 'keeper_push_seconds_count')[0]?.value ?? 0) - pushedBefore;
      // One push per socket at least (the data change; a bare watch notification may come too).
      expect(pushed).toBeGreaterThanOrEqual(2);
      const seconds = (samples(after, 'keeper_push_seconds_sum')[0]?.value ?? 0) - (samples(before, 'keeper_push_seconds_sum')[0]?.value ?? 0);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds / pushed).toBeLessThan(5);
    } finally {
      for (const b of browsers) b.close();
      await writer.remove('/metrics-push').catch(() => undefined);
      writer.close();
    }
    await waitFor(async () => samples(parsePromText((await scrape(keeper)).text), 'keeper_subscriptions', { ensemble: 'prod' })[0]?.value === 0, {
      what: 'subscriptions back to 0 once the sockets close',
    });
  });

  it("counts the watched locks by their worst contender's status", async () => {
    const owner = await connectRaw(ensemble.connectionString);
    const lock = '/metrics-locks/jobs';
    // kazoo's Lock names its contenders <32 hex>__lock__<sequence>.
    const CONTENDER = `${'a'.repeat(32)}__lock__0000000000`;
    try {
      await owner.mkdirp(lock);
      // A kazoo-style contender, ephemeral (CreateMode.EPHEMERAL = 1): the lock's only one holds it.
      await owner.create(`${lock}/${CONTENDER}`, 'worker-1', 1);
      const counts = async () => {
        const all = parsePromText((await scrape(keeper)).text);
        return Object.fromEntries(samples(all, 'keeper_locks', { ensemble: 'prod' }).map((s) => [s.labels.status, s.value]));
      };
      const seen = await waitFor(
        async () => {
          const c = await counts();
          return c.holder === 1 ? c : null;
        },
        { what: 'the lock counted as held', timeoutMs: 15_000 },
      );
      expect(seen).toEqual({ leaked: 0, persistent: 0, waiting: 0, holder: 1, empty: 0 });
    } finally {
      await owner.remove(`${lock}/${CONTENDER}`).catch(() => undefined);
      // Its reads settle before the next test counts Keeper's requests: the lock is no longer held.
      await waitFor(async () => samples(parsePromText((await scrape(keeper)).text), 'keeper_locks', { ensemble: 'prod', status: 'holder' })[0]?.value === 0, {
        what: 'the lock seen released',
      });
      owner.close();
    }
  });

  it('asks ZooKeeper nothing to answer a scrape', async () => {
    const gateway = keeper.ensembles.get('prod').gateway;
    const before = gateway.callsSent;
    for (let i = 0; i < 20; i++) expect((await scrape(keeper)).status).toBe(200);
    expect(gateway.callsSent).toBe(before);
  });

  it('serves loopback only by default: a request that came through a proxy is refused even from loopback', async () => {
    const proxied = await scrape(keeper, { 'X-Forwarded-For': '203.0.113.9' });
    expect(proxied.status).toBe(403);
    expect(proxied.text).toMatch(/this machine only/);
  });

  it('with a token: refuses none or a wrong one (audited, limited like a sign-in), serves the right one', async () => {
    expect((await scrape(tokenKeeper)).status).toBe(401);
    const wrong = await scrape(tokenKeeper, { Authorization: 'Bearer not-the-metrics-token-at-all' });
    expect(wrong.status).toBe(401);
    const entries = await waitFor(
      async () => {
        const res = await fetch(`${tokenKeeper.url}/api/audit?limit=50`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
        const body = (await res.json()) as { entries: { action: string; outcome: string; error?: { message: string } }[] };
        const failed = body.entries.filter((e) => e.action === 'login' && e.outcome === 'failed');
        return failed.length >= 2 ? failed : null;
      },
      { what: 'failed scrapes audited' },
    );
    expect(entries.map((e) => e.error?.message)).toContain('wrong metrics token');
    expect((await scrape(tokenKeeper, { Authorization: `Bearer ${METRICS_TOKEN}` })).status).toBe(200);
    // Three failures a minute from this address: the next wrong guess waits.
    await scrape(tokenKeeper, { Authorization: 'Bearer another-wrong-token-xxxxxxxx' });
    const limited = await scrape(tokenKeeper, { Authorization: 'Bearer yet-another-wrong-token-xxxx' });
    expect(limited.status).toBe(429);
    // A correct token always passes the guess limiter (issue 25 item 5).
    expect((await scrape(tokenKeeper, { Authorization: `Bearer ${METRICS_TOKEN}` })).status).toBe(200);
  });

  it('is absent when off', async () => {
    expect((await scrape(offKeeper)).status).toBe(404);
  });

  describe('a real Prometheus with the shipped rules', () => {
    let prometheus: ChildProcess | null = null;
    let promDir: string;
    const api = async <T>(path: string): Promise<T> => {
      const res = await fetch(`http://127.0.0.1:${PROMETHEUS_PORT}${path}`);
      return ((await res.json()) as { data: T }).data;
    };
    const firing = async () =>
      (await api<{ alerts: { labels: Record<string, string>; state: string }[] }>('/api/v1/alerts')).alerts.filter(
        (a) => a.labels.alertname === 'ZooKeeperMemberDown' && a.state === 'firing',
      );

    beforeAll(async () => {
      promDir = stateDir();
      // The shipped rules, their `for:` shortened so a test need not wait minutes: the expressions,
      // labels and annotations are exactly the file's (promtool checks the file itself in the unit tests).
      writeFileSync(join(promDir, 'rules.yml'), readFileSync(RULES, 'utf8').replace(/^(\s+for:) \S+$/gm, '$1 2s'));
      writeFileSync(
        join(promDir, 'prometheus.yml'),
        [
          'global: { scrape_interval: 1s, evaluation_interval: 1s }',
          'rule_files: [rules.yml]',
          'scrape_configs:',
          '  - job_name: keeper',
          `    static_configs: [{ targets: ['${new URL(keeper.url).host}'] }]`,
        ].join('\n'),
      );
      prometheus = spawn(
        'prometheus',
        [
          `--config.file=${join(promDir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(promDir, 'data')}`,
          `--web.listen-address=127.0.0.1:${PROMETHEUS_PORT}`,
        ],
        { cwd: promDir, stdio: 'ignore' },
      );
      await waitFor(
        async () => {
          const targets = await api<{ activeTargets: { health: string }[] }>('/api/v1/targets');
          return targets.activeTargets[0]?.health === 'up';
        },
        { what: 'Prometheus scraping Keeper', timeoutMs: 60_000, intervalMs: 250 },
      );
    }, 90_000);

    afterAll(() => {
      prometheus?.kill('SIGKILL');
    });

    it('fires ZooKeeperMemberDown when a member is killed, and not before', async () => {
      const leader = (await ensemble.leaderId())!;
      const victim = [1, 2, 3].find((id) => id !== leader)!;
      const { host, clientPort } = ensemble.member(victim);
      // Scraped and evaluated for a few rounds with every member up: nothing fires.
      await new Promise((r) => setTimeout(r, 4_000));
      expect(await firing()).toEqual([]);

      await ensemble.killMember(victim);
      const alerts = await waitFor(async () => ((await firing()).length > 0 ? firing() : null), {
        what: 'ZooKeeperMemberDown firing',
        timeoutMs: 30_000,
        intervalMs: 500,
      });
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.labels).toMatchObject({ ensemble: 'prod', member: `${host}:${clientPort}`, role: 'down', severity: 'critical' });
    });
  });
});

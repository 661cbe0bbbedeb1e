/**
 * Seed 000's request herd on a real 3-member ensemble: kazoo workers looping getChildren on a
 * node with thousands of children, beside idle kazoo sessions. The workers pause a quarter second
 * between calls, as the issue's workers were slowed to about 4 req/s each by a loaded ensemble
 * (issue 22 item 13): under the old fixed 5 req/s a session, no herd was named at all. Keeper must
 * show each session's rate and each member's packets per second; name the herd by its share of all
 * requests or its summed rate (how many, from where, how hard, the latency, the operation and the
 * node a browser has open, and what the latest wchp shows them watching, item 14); raise it among
 * the ensemble's alerts with a link to the Sessions view (item 15); keep it named while it eases
 * off for fewer than 3 gatherings; and drop it after 3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { membersAnswerSchema, sessionsAnswerSchema, watchesAnswerSchema, type SessionsAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { holdSessions, kazoo, startRequestHerd, type HeldSessions, type RunningRequestHerd } from '../../scripts/lib/kazoo/index.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

const WORKERS = 30;
const IDLE = 5;
const TASKS = 3_000;
/** kazoo's grow op makes /herd/shard-00 with TASKS children: the task list the workers poll. */
const TASK_LIST = '/herd/shard-00';
/** The queue head every worker keeps a data watch on (wchp shows it). */
const QUEUE_HEAD = '/herd/head';
/** Each worker pauses this long between calls: at most 4 req/s a session, under the old rule's 5. */
const PAUSE_S = 0.25;
const OLD_SESSION_FLOOR = 5;
/** An idle kazoo session pings every third of its 30 s timeout: about 0.1 requests per second. */
const IDLE_RATE_CEILING = 1;
/**
 * Whether 30 workers raise the members' latency depends on the machine: here they pushed a third
 * of them past 50 ms, on a faster CI machine nothing climbed and, rightly, no herd was named.
 * The latency and outstanding gates are pinned by shared/test (herd detection); this test checks
 * what needs real clients (rates measured, the herd named with its hosts, operation and node,
 * then cleared), so it opens the latency gate: any measured latency counts as climbing.
 */
const SETTINGS = { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000, watchesByPathMinIntervalMs: 30_000, herdThresholds: { latencyMs: 0 } };

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

describe('request-rate herd (seed 000)', () => {
  let ensemble: Ensemble;
  let keeper: RunningKeeper;
  let idle: HeldSessions | null = null;
  let herd: RunningRequestHerd | null = null;
  let browser: TestBrowser | null = null;

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.herdTest);
    await kazoo(ensemble.connectionString, [{ op: 'grow', path: '/herd', shards: 1, perShard: TASKS }]);
    keeper = await startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [ensembleConfigOf(ensemble)],
      },
      { logger: testLogger, ensembleDefaults: SETTINGS },
    );
  }, 180_000);

  afterAll(async () => {
    browser?.close();
    await herd?.stop().catch(() => 0);
    await idle?.release();
    await keeper?.close();
    await ensemble?.dispose();
  });

  async function sessions(): Promise<SessionsAnswer> {
    const res = await fetch(`${keeper.url}/api/ensembles/it/sessions?refresh=true`);
    expect(res.status).toBe(200);
    return sessionsAnswerSchema.parse(await res.json());
  }

  /** A gathering newer than `after` (the collector shares one gathering per 3 s). */
  async function gatheringAfter(after: number, check: (s: SessionsAnswer) => boolean = () => true): Promise<SessionsAnswer> {
    let seen = 0;
    return (await waitFor(
      async () => {
        const s = await sessions();
        if (s.gatheredAt !== null && s.gatheredAt > after && s.gatheredAt !== seen) {
          seen = s.gatheredAt;
          console.log(`gathering at +${Math.round((s.gatheredAt - after) / 1000)} s: ${describeGathering(s)}`);
        }
        return s.gatheredAt !== null && s.gatheredAt > after && check(s) ? s : null;
      },
      { what: 'a new sessions gathering', timeoutMs: 40_000, intervalMs: 1_000 },
    )) as SessionsAnswer;
  }

  /** What the herd detection saw, printed so a run that misses the herd says why. */
  function describeGathering(s: SessionsAnswer): string {
    const rates = s.sessions.map((x) => x.requestsPerSecond ?? 0).filter((r) => r > 0);
    const latencies = s.sessions.flatMap((x) => (x.latencyAvg === null ? [] : [x.latencyAvg]));
    const slow = s.sessions.filter((x) => (x.latencyMax ?? 0) >= 50).length;
    return (
      `${s.sessions.length} sessions, ${rates.length} sending (${Math.min(...rates, Infinity)}-${Math.max(...rates, 0)} req/s), ` +
      `avg latency ${latencies.length ? Math.max(...latencies) : '-'} ms at most, ${slow} with a request ≥ 50 ms, ` +
      `queued ${s.sessions.reduce((n, x) => n + (x.queued ?? 0), 0)}, herd ${s.herd ? s.herd.sessions : 'none'}, gaps ${s.gaps.length}`
    );
  }

  it('names a herd slowed under 5 req/s a session by its share and sum, with what wchp shows it watching, as an ensemble alert, and keeps it for 3 gatherings after it eases off', async () => {
    idle = await holdSessions(Array.from({ length: IDLE }, () => ({ hosts: ensemble.connectionString, timeout: 30 })));
    // A browser has the task list open: the watch registry then holds its child count for free.
    browser = await TestBrowser.open(keeper.url);
    await browser.subscribed('znode', 'it', { path: TASK_LIST });
    await browser.subscribed('ensembleHealth', 'it', {});

    const before = await sessions();
    expect(before.sessions.every((s) => s.requestsPerSecond === null)).toBe(true);
    expect(before.herd ?? null).toBeNull();

    herd = await startRequestHerd({ hosts: ensemble.connectionString, path: TASK_LIST, workers: WORKERS, pauseS: PAUSE_S, watchPath: QUEUE_HEAD });
    const started = Date.now();
    const workerIds = new Set(herd.ids);
    const idleIds = new Set(idle.ids);
    // Someone opens the Watches view: the wchp it gathers is what the herd's sentence may cite.
    const watches = watchesAnswerSchema.parse(await (await fetch(`${keeper.url}/api/ensembles/it/watches?byPath=true`)).json());
    expect(watches.byPath?.herds.map((h) => h.path)).toContain(QUEUE_HEAD);

    // The first gathering with the workers connected is their first reading (no rate yet); the next has one.
    const during = await gatheringAfter(started, (s) => (s.herd ?? null) !== null);
    const workers = during.sessions.filter((s) => workerIds.has(s.sessionId));
    const idles = during.sessions.filter((s) => idleIds.has(s.sessionId));
    const workerRates = workers.map((s) => s.requestsPerSecond ?? 0);
    console.log(
      `herd after ${Math.round((Date.now() - started) / 1000)} s, rates over ${during.ratesOverSeconds} s: workers ${Math.min(...workerRates)}-${Math.max(...workerRates)} req/s, idle ${idles.map((s) => s.requestsPerSecond).join(', ')}; herd ${JSON.stringify({ ...during.herd, sessionIds: undefined })}`,
    );
    expect(workers).toHaveLength(WORKERS);
    // Every worker sends, each under the old fixed floor: the old rule named none of this.
    expect(Math.min(...workerRates)).toBeGreaterThan(IDLE_RATE_CEILING);
    expect(Math.max(...workerRates)).toBeLessThan(OLD_SESSION_FLOOR);
    expect(idles).toHaveLength(IDLE);
    for (const s of idles) expect(s.requestsPerSecond).toBeLessThan(IDLE_RATE_CEILING);

    const found = during.herd!;
    // Every session it names is flagged, so the Sessions header's count and the banner agree (issue 34 item 7).
    const named = new Set(found.sessionIds);
    for (const s of during.sessions) expect(s.flags.some((f) => f.kind === 'request-herd')).toBe(named.has(s.sessionId));
    expect(found.sessions).toBeGreaterThanOrEqual(WORKERS * 0.8);
    expect(found.maxRate).toBeLessThan(OLD_SESSION_FLOOR);
    expect(found.hosts.map((h) => h.host)).toEqual(['127.0.0.1']);
    expect(found.shareOfRequests).toBeGreaterThan(0.9);
    expect(found.operation).toBe('GETC');
    expect(found.target).toMatchObject({ path: TASK_LIST, numChildren: TASKS });
    expect(found.watched).toMatchObject({ source: 'watches', complete: true });
    expect(found.watched!.paths[0]).toMatchObject({ path: QUEUE_HEAD });
    expect(found.watched!.paths[0]!.herdWatchers).toBe(found.sessions);
    const alert = during.alerts?.find((a) => a.id === 'request-herd');
    expect(alert?.title).toContain(`Request herd: ${found.sessions} sessions from 1 host send`);
    expect(alert?.title).toContain(`mostly getChildren, likely on ${TASK_LIST}`);
    expect(alert?.why).toContain('127.0.0.1');
    expect(alert?.why).toContain(`most of them watch ${QUEUE_HEAD} (${found.sessions} of them`);
    // Only what a gathering saw (item 14): never "not a watch herd" on no evidence.
    expect(alert?.why).not.toMatch(/wchp shows nothing|not a watch herd/);
    expect(alert?.action).toContain('deadline');

    // An ensemble alert too, linking to the Sessions view (item 15): in /members and pushed to the ensemble view.
    // The poller adds it to the ensemble's alerts at its next round (a second here).
    const members = (await waitFor(
      async () => {
        const body = membersAnswerSchema.parse(await (await fetch(`${keeper.url}/api/ensembles/it/members`)).json());
        return body.alerts.some((a) => a.id === 'request-herd') ? body : null;
      },
      { what: 'the herd among the ensemble alerts', timeoutMs: 5_000, intervalMs: 250 },
    ))!;
    const ensembleAlert = members.alerts.find((a) => a.id === 'request-herd');
    expect(ensembleAlert).toMatchObject({ title: alert!.title, see: { view: 'sessions' } });
    expect(ensembleAlert!.asOf).toBeGreaterThan(started);
    await waitFor(
      () => browser!.topicEvents('ensembleHealth', 'it').some((e) => e.event.kind === 'health' && e.event.health.alerts.some((a) => a.id === 'request-herd')),
      { what: 'the herd among the alerts a browser on the ensemble view is sent', timeoutMs: 5_000 },
    );

    // Each member's packets per second, in its metrics and its history.
    const packetRates = members.members.map((m) => m.metrics.packetsReceivedPerSecond ?? null);
    console.log(`members' packets received per second during the herd: ${packetRates.join(', ')}`);
    for (const rate of packetRates) expect(rate).not.toBeNull();
    expect(packetRates.reduce<number>((a, b) => a + (b ?? 0), 0)).toBeGreaterThan(WORKERS * IDLE_RATE_CEILING);
    const history = keeper.ensembles.get('it').poller.history();
    expect(Object.values(history).some((points) => points.some((p) => (p.packetsReceivedPerSecond ?? 0) > IDLE_RATE_CEILING))).toBe(true);

    // The herd eases off (its sessions stay): named while it measures below the threshold, for 3 gatherings at most.
    await herd.pause();
    const paused = Date.now();
    const fading = await gatheringAfter(paused, (s) => (s.herd?.gatheringsBelow ?? 0) >= 1);
    expect(fading.herd).toMatchObject({ clearsAfter: 3 });
    expect(fading.alerts?.find((a) => a.id === 'request-herd')?.why).toMatch(/measured it below the threshold; it stays named until 3 gatherings in a row do/);
    let last = fading;
    const after = await gatheringAfter(fading.gatheredAt!, (s) => {
      if (s.herd) last = s;
      return (s.herd ?? null) === null;
    });
    expect(last.herd?.gatheringsBelow).toBe(2);
    expect(after.alerts?.some((a) => a.id === 'request-herd') ?? false).toBe(false);
    const calls = await herd.stop();
    herd = null;
    console.log(`the workers' getChildren calls in ${Math.round((paused - started) / 1000)} s: ${calls}`);
    for (const s of after.sessions.filter((x) => idleIds.has(x.sessionId))) expect(s.requestsPerSecond).toBeLessThan(IDLE_RATE_CEILING);
  }, 180_000);
});

/**
 * The Locks view's sentences checked against real kazoo 2.8.0 clients on a real 3-member
 * ensemble (issue 22, items 7-10 and 12; issue 25, item 2):
 *  - a hold counts from when it began (the holder's ctime, or the moment Keeper saw the node
 *    before it go), never from when Keeper began watching; a wait from the waiter's ctime;
 *  - a share link receives nothing outside its subtree (locks, herds, roots, scans) and, without
 *    the ensemble views, no session id, client or member address, over HTTP and the socket;
 *  - a lock's page shows its own herds only; an owner's last response says which gathering;
 *  - a live kazoo waiter whose callback thread is held by a slow application callback is never
 *    called leaked before its session timeout, and a Clean leaves alone a node whose owner
 *    watches again by the time it deletes, or that its dry run did not list;
 *  - a restart keeps what scans found and the holds Keeper saw begin (same state directory).
 * One ensemble and the scenarios are shared: the tests run in order.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leakCheckSummary, lockAnswerSchema, locksAnswerSchema, type Contender, type LeakCheck, type LockAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { ensembleConfigOf, leaseSharedEnsemble, type SharedEnsemble } from './support/testEnsemble.js';
import {
  kazooLockScenario,
  kazooLockHerdScenario,
  startInOrder,
  type KazooContender,
  type KazooLockScenario,
  type LockHerdScenario,
} from '../../scripts/lib/locks/index.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-lock-truth-0123456789';
const VIEWER = 'viewer-token-for-lock-truth-0123456789';
const admin: Who = { token: ADMIN };

const LEAKY = '/app/locks/leaky';
const OUTSIDE_LOCK = '/app/queue/lock';
const OUTSIDE_HERD = '/app/queue/head';
const SLOW = '/app/locks/slow';
const SLOW_SHORT = '/app/locks/slow-short';

describe('the Locks view tells the truth, and keeps share links to their scope', () => {
  let ensemble: SharedEnsemble;
  let keeper: RunningKeeper;
  let stateDir: string;
  let options: KeeperOptions;
  let leaky: KazooLockScenario;
  let outsideLock: KazooLockScenario;
  let herdInside: LockHerdScenario;
  let herdOutside: LockHerdScenario;
  const stops: (() => Promise<void>)[] = [];
  const browsers: TestBrowser[] = [];

  const start = () =>
    startKeeper(options, {
      logger: testLogger,
      // Owners are known (and their timeouts) once the sessions gathering lists them: re-read at each watch gathering here, not every minute.
      ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000, sessionsCadenceMs: 3_000 },
      rateLimits: { api: 100_000, loginFailures: 1_000 },
    });

  beforeAll(async () => {
    // It only connects clients and Keepers (every session closed at the end): a shared ensemble does.
    ensemble = await leaseSharedEnsemble();
    stateDir = mkdtempSync(join(tmpdir(), 'keeper-lock-truth-'));
    // No configured roots: what Keeper watches comes from opened pages and scans.
    options = {
      host: '127.0.0.1',
      port: 0,
      ensembles: [ensembleConfigOf(ensemble, { locks: { gatherIntervalMs: 10_000 } })],
      auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    };
    keeper = await start();
  }, 180_000);

  afterAll(async () => {
    for (const b of browsers) b.close();
    await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
    await keeper?.close();
    await ensemble?.dispose();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const get = (path: string, who: Who = admin) => call(keeper.url, 'GET', `/api/ensembles/it${path}`, who);
  const detail = async (path: string, who: Who = admin): Promise<LockAnswer> => {
    const res = await get(`/locks${path}`, who);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return lockAnswerSchema.parse(res.body);
  };
  /**
   * A watch gathering asked now (at most once a second) instead of at the next one of the 10 s cadence, for the waits
   * on what any gathering shows (who watches what, herds), which are not about the cadence. It never hastens a leak
   * proof: the evidence itself wants two gatherings >= LEAK_MIN_GAP_MS apart, however often one is asked.
   */
  let gatherAskedAt = 0;
  const gatherSoon = () => {
    if (Date.now() - gatherAskedAt < 1_000) return;
    gatherAskedAt = Date.now();
    void keeper.ensembles.get('it').locks.gatherer.gatherNow();
  };
  /** The lock once every listed contender's facts are read and a watch gathering has seen them. */
  const settled = (path: string, count: number) =>
    waitFor(
      async () => {
        const answer = await detail(path);
        if (answer.lock.contenders.length !== count) return null;
        if (answer.lock.contenders.every((c) => c.watching !== 'unknown' || c.holding)) return answer;
        gatherSoon();
        return null;
      },
      { what: `${path} with ${count} contenders and a gathering`, timeoutMs: 40_000, intervalMs: 300 },
    );
  const byName = (answer: LockAnswer, name: string): Contender => answer.lock.contenders.find((c) => c.name === name)!;

  it('counts a hold from its ctime when nothing before it went, a wait from its ctime, never from when Keeper began watching (item 7)', async () => {
    leaky = await kazooLockScenario({ hosts: ensemble.connectionString, path: LEAKY, waiters: 2 });
    stops.push(() => leaky.stop());
    // The lock is older than Keeper's first look at it.
    await new Promise((r) => setTimeout(r, 3_000));
    const openedAt = Date.now();
    const answer = await settled(LEAKY, 3);
    const [holder, first, second] = answer.lock.contenders as [Contender, Contender, Contender];
    console.log(
      `holder held ${holder.heldForMs} ms (${holder.heldSince?.kind}); waiters waiting ${first.waitingForMs} and ${second.waitingForMs} ms; Keeper looked ${Date.now() - openedAt} ms ago`,
    );
    expect(holder.heldSince).toEqual({ at: holder.createdAt, kind: 'created' });
    // The holder was created before its waiters: it has held longer than either has waited.
    expect(holder.heldForMs!).toBeGreaterThanOrEqual(first.waitingForMs!);
    expect(first.waitingForMs!).toBeGreaterThanOrEqual(second.waitingForMs!);
    expect(holder.heldForMs!).toBeGreaterThan(Date.now() - openedAt + 2_000);
    expect(first).toMatchObject({ waitingSince: first.createdAt, heldSince: null });

    // A release Keeper watches: the next holder holds since Keeper saw the node before it go.
    const asked = Date.now();
    const next = await leaky.releaseHolder();
    const after = await waitFor(
      async () => {
        const a = await detail(LEAKY);
        return a.lock.contenders[0]?.name === next.name && a.lock.contenders[0].heldSince ? a : null;
      },
      { what: 'the next holder', timeoutMs: 10_000, intervalMs: 100 },
    );
    const since = after.lock.contenders[0]!.heldSince!;
    expect(since.kind).toBe('seen');
    expect(since.at).toBeGreaterThanOrEqual(asked - 1_000);
    expect(since.at).toBeLessThanOrEqual(Date.now());
  });

  it("says which gathering an owner's last response comes from (item 9)", async () => {
    const answer = await detail(LEAKY);
    for (const c of answer.lock.contenders) {
      const owner = c.owner!;
      expect(owner.lastResponseAsOf, c.name).not.toBeNull();
      expect(owner.lastResponseAt!).toBeLessThanOrEqual(owner.lastResponseAsOf!);
      // A live kazoo client pings every third of its 30 s timeout: at the gathering it had answered within it.
      expect(owner.lastResponseAsOf! - owner.lastResponseAt!).toBeLessThan(owner.timeoutMs!);
      expect(owner.lastResponseAsOf!).toBeLessThanOrEqual(Date.now());
    }
  });

  it("keeps a share link to its scope in every lock answer and topic it can receive, HTTP and socket (item 12), and a lock's page to its own herds (item 10)", async () => {
    outsideLock = await kazooLockScenario({ hosts: ensemble.connectionString, path: OUTSIDE_LOCK, waiters: 1 });
    stops.push(() => outsideLock.stop());
    herdOutside = await kazooLockHerdScenario({ hosts: ensemble.connectionString, path: OUTSIDE_HERD, watchers: 12 });
    stops.push(() => herdOutside.stop());
    herdInside = await kazooLockHerdScenario({ hosts: ensemble.connectionString, path: LEAKY, watchers: 10 });
    stops.push(() => herdInside.stop());
    await detail(OUTSIDE_LOCK);
    // The admin sees both herds once a gathering has: the outside one is what a link must not.
    const full = await waitFor(
      async () => {
        const list = locksAnswerSchema.parse((await get('/locks')).body);
        if (list.herds.some((h) => h.path === OUTSIDE_HERD) && list.herds.some((h) => h.path === LEAKY)) return list;
        gatherSoon();
        return null;
      },
      { what: 'both herds gathered', timeoutMs: 40_000, intervalMs: 500 },
    );
    expect(full.locks.map((l) => l.path)).toEqual(expect.arrayContaining([LEAKY, OUTSIDE_LOCK]));
    // Item 10: the lock's own page shows its own herd, never the queue's.
    const page = await detail(LEAKY);
    expect(page.herds.map((h) => h.path)).toEqual([LEAKY]);

    // What must not reach a link without the ensemble views: every session id, client and member address of these clients.
    const ours = new Set([...leaky.sessionIds, ...outsideLock.sessionIds, ...herdInside.sessionIds, ...herdOutside.sessionIds]);
    // Every one of them, once the sessions view's own gathering (3 s cadence here) has listed the herds' new sessions.
    const mine = await waitFor(
      async () => {
        const sessions = (await get('/sessions')).body as { sessions: { sessionId: string; client: string; member: string }[] };
        const listed = sessions.sessions.filter((s) => ours.has(s.sessionId));
        return listed.length === ours.size ? listed : null;
      },
      { what: 'every session of these clients listed', timeoutMs: 20_000, intervalMs: 300 },
    );
    expect(mine.length).toBe(ours.size);
    const sessionIds = [...ours];
    const addresses = [...new Set(mine.flatMap((s) => [s.client, s.member]).filter(Boolean))];
    const outOfScope = ['/app/queue'];

    const linkTo = async (scope?: { root?: string; ensembleViews?: boolean }): Promise<Who> => {
      const created = await call(keeper.url, 'POST', '/api/share-links', admin, {
        path: `/ensembles/it/locks${LEAKY}`,
        expiresInMinutes: 30,
        ...(scope ? { scope } : {}),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const opened = await fetch(created.body.url, { redirect: 'manual' });
      return { cookie: /keeper_session=[^;]*/.exec(opened.headers.get('set-cookie') ?? '')![0] };
    };
    /** Every lock payload the link can receive: HTTP answers (refusals included) and socket frames as sent. */
    const harvest = async (who: Who, withViews: boolean): Promise<{ label: string; text: string }[]> => {
      const payloads: { label: string; text: string }[] = [];
      for (const path of [
        '/locks',
        '/locks?path=/',
        '/locks?path=/app',
        '/locks?path=/app/queue',
        '/locks?q=queue',
        '/locks?limit=500',
        `/locks${LEAKY}`,
        `/locks${OUTSIDE_LOCK}`,
        `/locks${LEAKY}/nothing`,
      ]) {
        const res = await get(path, who);
        payloads.push({ label: `GET ${path} (${res.status})`, text: JSON.stringify(res.body) });
      }
      const browser = await TestBrowser.open(keeper.url, { headers: { cookie: who.cookie! } });
      browsers.push(browser);
      const frames: string[] = [];
      browser.socket.on('message', (data: Buffer) => frames.push(data.toString()));
      await browser.subscribed('lock', 'it', { path: LEAKY });
      if (withViews) {
        await browser.subscribed('locks', 'it', {});
        await browser.subscribed('locks', 'it', { q: 'queue' });
      }
      // Refused, but the refusal is a payload too.
      browser.subscribe('lock', 'it', { path: OUTSIDE_LOCK }, 'outside');
      if (!withViews) browser.subscribe('locks', 'it', {}, 'list');
      const gatherer = keeper.ensembles.get('it').locks.gatherer;
      const before = frames.length;
      await waitFor(() => frames.length >= before + (withViews ? 3 : 1) && gatherer.gatherings.length > 0, {
        what: 'pushes after a gathering',
        timeoutMs: 30_000,
      });
      // A gathering later, every subscription has pushed at least once more (herds included): one asked now, and
      // each accepted subscription's push that carries it (every gathering pushes every lock and list subscription).
      await gatherer.gatherNow();
      const gathered = leakCheckSummary(gatherer.gatherings);
      const carries = (leakCheck: LeakCheck | undefined) => leakCheck?.spanMs === gathered.spanMs && leakCheck.gatherings === gathered.gatherings;
      const accepted = [
        () => browser.topicEvents('lock', 'it').some((e) => e.params.path === LEAKY && e.event.kind === 'lock' && carries(e.event.lock.leakCheck)),
        ...(withViews
          ? [undefined, 'queue'].map((q) => () => browser.topicEvents('locks', 'it').some((e) => e.params.q === q && carries(e.event.locks.leakCheck)))
          : []),
      ];
      await waitFor(() => accepted.every((pushed) => pushed()), { what: "every subscription's push after the gathering", timeoutMs: 30_000 });
      payloads.push(...frames.map((text, i) => ({ label: `socket frame ${i}`, text })));
      return payloads;
    };
    // A refusal may repeat what the link itself asked for (the path of its request): that is no leak.
    const asked = [OUTSIDE_LOCK, 'path=/app/queue', '"/app/queue"'];
    const leaksIn = (payloads: { label: string; text: string }[], words: readonly string[]) =>
      payloads.flatMap((p) => {
        const text = asked.reduce((t, a) => t.replaceAll(a, ''), p.text);
        return words.filter((w) => text.includes(w)).map((w) => `${p.label}: ${w}`);
      });

    // A link to the lock's page: its subtree, no ensemble views.
    const subtree = await linkTo();
    const seenBySubtree = await harvest(subtree, false);
    expect(leaksIn(seenBySubtree, [...sessionIds, ...addresses, ...outOfScope])).toEqual([]);
    // Not vacuous: it did get the lock, its three contenders and its statuses.
    const subtreeDetail = lockAnswerSchema.parse(JSON.parse(seenBySubtree.find((p) => p.label.startsWith(`GET /locks${LEAKY} (`))!.text));
    expect(subtreeDetail.ownersHidden).toBe(true);
    expect(subtreeDetail.lock.contenders.map((c) => c.status)).toEqual(['holder', 'waiting']);
    expect(subtreeDetail.lock.contenders.every((c) => c.owner?.sessionId === null && c.owner.timeoutMs === 30_000)).toBe(true);
    expect(subtreeDetail.herds.map((h) => [h.path, h.sessions.length])).toEqual([[LEAKY, 0]]);

    // A link to /app/locks with the ensemble views: owners shown, still nothing outside its subtree.
    const views = await linkTo({ root: '/app/locks', ensembleViews: true });
    const seenByViews = await harvest(views, true);
    expect(leaksIn(seenByViews, [...outOfScope, ...herdOutside.sessionIds, ...outsideLock.sessionIds])).toEqual([]);
    expect(leaksIn(seenByViews, leaky.sessionIds.slice(1)).length).toBeGreaterThan(0);
    const viewsList = locksAnswerSchema.parse(JSON.parse(seenByViews.find((p) => p.label.startsWith('GET /locks?path=/ ('))!.text));
    expect(viewsList.locks.map((l) => l.path)).toEqual([LEAKY]);
    expect(viewsList.total).toBe(1);
    expect(viewsList.herds.map((h) => h.path)).toEqual([LEAKY]);
  }, 180_000);

  it('never calls a live kazoo waiter leaked while a slow application callback holds its callback thread, and a Clean deletes only what its dry run pinned and is still unwatched (issue 25, item 2)', async () => {
    const hosts = ensemble.connectionString;
    // A: a 40 s session; B: a 4 s session (its window is the 10 s floor and two gatherings).
    const [h1, w1, a] = (await startInOrder([
      { hosts, path: SLOW, identifier: 'h1' },
      { hosts, path: SLOW, identifier: 'w1' },
      { hosts, path: SLOW, identifier: 'a', timeoutS: 40 },
    ])) as [KazooContender, KazooContender, KazooContender];
    const [h2, v1, b] = (await startInOrder([
      { hosts, path: SLOW_SHORT, identifier: 'h2' },
      { hosts, path: SLOW_SHORT, identifier: 'v1' },
      { hosts, path: SLOW_SHORT, identifier: 'b', timeoutS: 4 },
    ])) as [KazooContender, KazooContender, KazooContender];
    stops.push(...[h1, w1, a, h2, v1, b].map((c) => () => c.stop()));
    // Both opened at once: Keeper tracks a directory from its first look, and a gathering keeps the watches of tracked ones only.
    await Promise.all([settled(SLOW, 3), settled(SLOW_SHORT, 3)]);
    // Their owners are in the sessions data (with their timeouts): nothing below is "waiting" for want of knowing them.
    await waitFor(async () => byName(await detail(SLOW), a.name)?.owner?.known && byName(await detail(SLOW_SHORT), b.name)?.owner?.known, {
      what: "A's and B's sessions gathered",
      timeoutMs: 30_000,
      intervalMs: 500,
    });
    expect(byName(await detail(SLOW), a.name)!.owner!.timeoutMs).toBe(40_000);
    expect(byName(await detail(SLOW_SHORT), b.name)!.owner!.timeoutMs).toBe(4_000);

    // Each waiter's application callback blocks kazoo's callback thread; then the node it watches goes.
    await a.holdCallbacks();
    await b.holdCallbacks();
    await Promise.all([w1.stop(), v1.stop()]);
    const left = Date.now();
    const statusOf = async (path: string, name: string) => byName(await detail(path), name)?.status;
    await waitFor(async () => (await detail(SLOW)).lock.contenders.length === 2 && (await detail(SLOW_SHORT)).lock.contenders.length === 2, {
      what: 'the predecessors gone',
      timeoutMs: 10_000,
    });

    // B (4 s session) is proven leaked once two gatherings 10 s apart saw it unwatched; A (40 s) is not, for 30 s at least.
    let bLeakedAt: number | null = null;
    const aSeen: string[] = [];
    while (Date.now() - left < 30_000) {
      aSeen.push((await statusOf(SLOW, a.name))!);
      if (bLeakedAt === null && (await statusOf(SLOW_SHORT, b.name)) === 'leaked') bLeakedAt = Date.now();
      await new Promise((r) => setTimeout(r, 500));
    }
    console.log(
      `A (40 s session) seen ${aSeen.length} times: ${[...new Set(aSeen)].join(', ')}; B (4 s) leaked ${bLeakedAt === null ? 'never' : `${bLeakedAt - left} ms`} after its predecessor left`,
    );
    expect(new Set(aSeen)).toEqual(new Set(['waiting']));
    expect(bLeakedAt).not.toBeNull();

    // The dry run pins B only.
    const dry = await call(keeper.url, 'POST', '/api/ensembles/it/locks/clean', admin, { path: '/app/locks', dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect((dry.body.candidates as { path: string }[]).map((c) => c.path)).toEqual([b.path]);
    // A clean without its dry run's list is refused, reading nothing.
    const unpinned = await call(keeper.url, 'POST', '/api/ensembles/it/locks/clean', admin, { path: '/app/locks', dryRun: false });
    expect(unpinned.status).toBe(400);

    // B's callback returns: kazoo re-arms its watch on its new predecessor. The Clean re-gathers and leaves it alone.
    await b.releaseCallbacks();
    await new Promise((r) => setTimeout(r, 1_000));
    const clean = await call(keeper.url, 'POST', '/api/ensembles/it/locks/clean', admin, { path: '/app/locks', dryRun: false, pinned: dry.body.candidates });
    expect(clean.status, JSON.stringify(clean.body)).toBe(200);
    expect(clean.body.deleted).toEqual([]);
    expect(clean.body.skipped).toEqual([{ path: b.path, reason: expect.stringMatching(/watches the lock again/) }]);
    // A node the dry run did not list is never deleted, even if pinned by hand under another path.
    const stray = await call(keeper.url, 'POST', '/api/ensembles/it/locks/clean', admin, {
      path: SLOW,
      dryRun: false,
      pinned: [{ path: a.path, lock: SLOW, owner: a.sessionId, version: 0 }],
    });
    expect(stray.body.deleted).toEqual([]);
    expect(stray.body.skipped[0].reason).toMatch(/no longer proven leaked|not deleted/);
    expect(byName(await detail(SLOW_SHORT), b.name)).toBeDefined();
    expect(byName(await detail(SLOW), a.name)).toBeDefined();

    // A's callback returns too: it waits on its new predecessor, never having been called leaked.
    await a.releaseCallbacks();
    await waitFor(
      async () => {
        if (byName(await detail(SLOW), a.name)?.watching === 'blocker') return true;
        gatherSoon();
        return false;
      },
      { what: "A's watch re-armed", timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(await statusOf(SLOW, a.name)).toBe('waiting');
  }, 180_000);

  it('remembers what scans found and the holds it saw begin across a restart, keyed by the ensemble identity (item 8)', async () => {
    const scan = await call(keeper.url, 'POST', '/api/ensembles/it/locks/scan', admin, { path: '/app' });
    expect(scan.status, JSON.stringify(scan.body)).toBe(202);
    await waitFor(async () => (await get('/locks')).body.lastScan?.state === 'done', { what: 'the scan done', timeoutMs: 60_000, intervalMs: 500 });
    const before = locksAnswerSchema.parse((await get('/locks')).body);
    const scanned = before.locks.map((l) => l.path).sort();
    expect(scanned).toEqual([LEAKY, SLOW, SLOW_SHORT, OUTSIDE_LOCK].sort());
    const holderBefore = (await detail(LEAKY)).lock.contenders[0]!;
    expect(holderBefore.heldSince?.kind).toBe('seen');

    const id = keeper.ensembles.get('it').identity.current();
    expect(id).toBeTruthy();
    await keeper.close();
    // One file, in the directory of the ensemble's identity (the /keeper/ensemble-id marker), not of "it".
    expect(readdirSync(join(stateDir, 'ensembles'))).toEqual([id]);
    expect(readdirSync(join(stateDir, 'ensembles', id!))).toContain('locks.json');
    keeper = await start();
    const list = await waitFor(
      async () => {
        const l = locksAnswerSchema.parse((await get('/locks', { token: VIEWER })).body);
        return l.locks.length === scanned.length ? l : null;
      },
      { what: 'the scanned locks back after the restart, without a scan', timeoutMs: 30_000, intervalMs: 300 },
    );
    expect(list.locks.map((l) => l.path).sort()).toEqual(scanned);
    expect(list.lastScan).toBeNull();
    const holderAfter = (await detail(LEAKY)).lock.contenders[0]!;
    expect(holderAfter.name).toBe(holderBefore.name);
    // Still the moment the node before it went, not the restart.
    expect(holderAfter.heldSince).toEqual(holderBefore.heldSince);
  }, 120_000);
});

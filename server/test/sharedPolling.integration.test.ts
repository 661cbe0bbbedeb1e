/**
 * `"replicas": {"sharedPolling": true}` on one real 3-member home ensemble (docs/operating/replicas.md),
 * with three Keeper replicas in this process: L (started first, so elected; its connection to
 * the home ensemble goes through a proxy this file can partition), B and C. L polls the members
 * and publishes; B and C show what it publishes and send the members no 4lw at all; their
 * sessions and watches views are gathered by L when asked. L partitioned: B and C say "as of"
 * within 3 s of the missed refresh, and B takes over once L's session has expired; B closed: C
 * takes over at once. Neither's browsers ever see a result called live that is not.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { locksAnswerSchema, membersAnswerSchema, serverMessageSchema, type EnsembleHealth } from '@keeper/shared';
import { kazooLockScenario } from '../../scripts/lib/locks/index.js';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { PolledFollower } from '../src/replicas/polledFollower.js';
import { PolledPublisher } from '../src/replicas/polledPublisher.js';
import { MAX_POLLED_PAGES, PAGE_BYTES } from '../src/replicas/polledValue.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectRaw, type RawClient } from './support/rawClient.js';
import { call, type Who } from './support/http.js';
import { LossyProxy } from './support/lossyProxy.js';
import { TestBrowser } from './support/wsClient.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';

const ADMIN = 'polling-admin-token-0123456789';
const VIEWER = 'polling-viewer-token-0123456789';
const SECRET = 'polling-cluster-secret-0123456789-abcdef';
const ROOT = '/keeper/replicas';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };
const POLL_MS = 1_000;
/** L's sessions (its state session's too) last longer than the others', so its silence is seen before its expiry. */
const L_SESSION_MS = 8_000;
const SESSION_MS = 4_000;
/** The truth rule: "as of" within 3 s of a missed refresh. */
const LATE_WITHIN_MS = POLL_MS + 3_000;
const LOCKS = '/locks';
/** The Locks view's wchp + cons gathering interval (its floor: two gatherings this far apart prove a leak). */
const LOCK_GATHER_MS = 10_000;

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let proxy: LossyProxy;
let l: RunningKeeper;
let b: RunningKeeper;
let c: RunningKeeper | null = null;
let raw: RawClient;
const stateDirs: string[] = [];

function options(connectionString?: string): KeeperOptions {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-polling-it-'));
  stateDirs.push(stateDir);
  const home = ensembleConfigOf(ensemble, { name: 'home', locks: { roots: [LOCKS], gatherIntervalMs: LOCK_GATHER_MS } });
  return {
    host: '127.0.0.1',
    port: 0,
    ensembles: [connectionString ? { ...home, connectionString } : home],
    auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
    replicas: { stateEnsemble: 'home', root: ROOT, secret: SECRET, sharedPolling: true },
  };
}

const start = (connectionString?: string, sessionTimeoutMs = SESSION_MS) =>
  startKeeper(options(connectionString), {
    logger: testLogger,
    gatewayDefaults: { sessionTimeoutMs },
    ensembleDefaults: { pollIntervalMs: POLL_MS, sessionsMinIntervalMs: 1_000 },
  });

const nameOf = (keeper: RunningKeeper) => `${hostname()}:${keeper.port}`;
const modeOf = (keeper: RunningKeeper) => keeper.replicas!.polling!.modes().home;
const monitorOf = (keeper: RunningKeeper) => keeper.ensembles.get('home').monitor;
const gathererOf = (keeper: RunningKeeper) => keeper.ensembles.get('home').locks.gatherer;
/** Every 4lw and AdminServer request this replica sent the members so far. */
function memberRequests(keeper: RunningKeeper): number {
  return Object.values(monitorOf(keeper).counters.snapshot()).reduce((n, c) => n + c.fourLetterWords + c.admin, 0);
}

/** The same, by command and purpose (what a failed count shows). */
function commandsSent(keeper: RunningKeeper): Record<string, number> {
  const sent: Record<string, number> = {};
  for (const c of Object.values(monitorOf(keeper).counters.snapshot()))
    for (const [command, n] of Object.entries(c.byCommand)) if (!command.startsWith('zk ')) sent[command] = (sent[command] ?? 0) + n;
  return sent;
}

async function members(keeper: RunningKeeper, who: Who = admin) {
  const res = await call(keeper.url, 'GET', '/api/ensembles/home/members', who);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return membersAnswerSchema.parse(res.body);
}

/** A browser on the ensemble view, each health event with the moment it arrived. */
class HealthWatcher {
  readonly seen: { at: number; health: EnsembleHealth }[] = [];
  private constructor(readonly browser: TestBrowser) {
    browser.socket.on('message', (data) => {
      const message = serverMessageSchema.parse(JSON.parse(data.toString()));
      if (message.type !== 'batch') return;
      for (const e of message.events) if (e.topic === 'ensembleHealth' && e.event.kind === 'health') this.seen.push({ at: Date.now(), health: e.event.health });
    });
  }

  static async open(keeper: RunningKeeper): Promise<HealthWatcher> {
    const browser = await TestBrowser.open(keeper.url, { headers: { authorization: `Bearer ${ADMIN}` } });
    const watcher = new HealthWatcher(browser);
    await browser.subscribed('ensembleHealth', 'home', {});
    return watcher;
  }

  /**
   * No result stood as live longer than a refresh and the 3 s of the truth rule: each live one was
   * followed within that by the next round or by a late mark (its "as of").
   */
  liveGaps(from: number): { at: number; gapMs: number; polledBy: string | undefined }[] {
    const events = this.seen.filter((e) => e.at >= from);
    const gaps = [];
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (e.health.lateReason) continue;
      const next = events[i + 1]?.at ?? Date.now();
      if (next - e.at > LATE_WITHIN_MS) gaps.push({ at: e.at, gapMs: next - e.at, polledBy: e.health.polledBy });
    }
    return gaps;
  }

  close(): void {
    this.browser.close();
  }
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.sharedPollingTest);
  const first = ensemble.members[0]!;
  proxy = await LossyProxy.start({ host: first.host, port: first.clientPort });
  // L first, so it is elected; then B and C, each watching the candidate below it.
  l = await start(proxy.address, L_SESSION_MS);
  await waitFor(() => modeOf(l) === 'lead', { what: 'L leads', timeoutMs: 30_000 });
  b = await start();
  await waitFor(() => modeOf(b) === 'follow' && b.replicas!.polling!.election.hasVerdict, { what: 'B follows', timeoutMs: 30_000 });
  c = await start();
  await waitFor(() => modeOf(c!) === 'follow' && c!.replicas!.polling!.election.hasVerdict, { what: 'C follows', timeoutMs: 30_000 });
  raw = await connectRaw(ensemble.connectionString);
}, 180_000);

afterAll(async () => {
  raw?.close();
  await Promise.all([l?.close(), b?.close(), c?.close()]);
  await proxy?.close();
  await ensemble?.dispose();
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

describe('one replica polls for all', () => {
  it('shows on B and C the rounds L polled, and B and C send the members no four-letter word', async () => {
    await waitFor(async () => (await members(b)).polledBy === nameOf(l), { what: "B shows L's rounds", timeoutMs: 10_000 });
    const before = {
      l: memberRequests(l),
      b: memberRequests(b),
      c: memberRequests(c!),
      rounds: monitorOf(l).poller.rounds,
      shown: monitorOf(b).poller.adopted,
    };
    await waitFor(() => monitorOf(l).poller.rounds >= before.rounds + 3 && monitorOf(b).poller.adopted >= before.shown + 3, {
      what: 'three rounds polled by L and shown on B',
      timeoutMs: 15_000,
    });
    expect(memberRequests(l)).toBeGreaterThan(before.l);
    expect(memberRequests(b)).toBe(before.b);
    expect(memberRequests(c!)).toBe(before.c);
    // Never polled at all: the pollers of B and C were held from the start.
    expect(monitorOf(b).poller.rounds).toBe(0);
    expect(monitorOf(c!).poller.rounds).toBe(0);
    // The same result, with L's own time of the round, and every member's state.
    const onL = await members(l);
    const onB = await waitFor(
      async () => {
        const m = await members(b);
        return m.polledAt === onL.polledAt && m;
      },
      { what: "B shows L's latest round", timeoutMs: 5_000 },
    );
    expect(onB.members.map((m) => [m.address, m.state])).toEqual(onL.members.map((m) => [m.address, m.state]));
    expect(onB.members.every((m) => m.state === 'leader' || m.state === 'follower')).toBe(true);
    expect(onB.lateReason).toBeUndefined();
    expect(onL.polledBy).toBeUndefined();
    // The charts' history too: B's points are L's.
    expect(Object.keys(monitorOf(b).poller.history())).toEqual(expect.arrayContaining(onL.members.map((m) => m.address)));
  });

  it("gathers B's and C's sessions and watches on L, once for both, and B and C still ask the members nothing", async () => {
    const before = { b: memberRequests(b), c: memberRequests(c!), gatherings: monitorOf(l).sessions.gatherings, byPath: monitorOf(l).watches.byPathGatherings };
    const askedAt = Date.now();
    const fromB = await call(b.url, 'GET', '/api/ensembles/home/sessions?refresh=true', viewer);
    expect(fromB.status, JSON.stringify(fromB.body)).toBe(200);
    expect(fromB.body.ensemble).toBe('home');
    expect(fromB.body.gatheredAt).toBeGreaterThanOrEqual(askedAt - 1_000);
    // Every replica's console session and state session are there (one per Keeper each), gathered by L.
    expect(fromB.body.sessions.length).toBeGreaterThanOrEqual(6);
    expect(monitorOf(l).sessions.gatherings).toBe(before.gatherings + 1);
    // C saw L publish it: its own read within the cadence is served from it, with no ask.
    const fromC = await waitFor(
      async () => {
        const res = await call(c!.url, 'GET', '/api/ensembles/home/sessions', viewer);
        return res.body.gatheredAt === fromB.body.gatheredAt && res;
      },
      { what: "C holds L's gathering", timeoutMs: 5_000 },
    );
    expect(fromC.body.sessions).toHaveLength(fromB.body.sessions.length);
    expect(monitorOf(l).sessions.gatherings).toBe(before.gatherings + 1);

    const watches = await call(b.url, 'GET', '/api/ensembles/home/watches?byPath=true', viewer);
    expect(watches.status, JSON.stringify(watches.body)).toBe(200);
    expect(watches.body.summary.map((r: { member: string }) => r.member).sort()).toEqual(ensemble.members.map((m) => `${m.host}:${m.clientPort}`).sort());
    expect(watches.body.byPath?.gatheredAt).toBeGreaterThanOrEqual(askedAt - 1_000);
    expect(monitorOf(l).watches.byPathGatherings).toBe(before.byPath + 1);
    expect(memberRequests(b)).toBe(before.b);
    expect(memberRequests(c!)).toBe(before.c);
  });
  it("gathers B's and C's Locks evidence (wchp + cons) on L, at most once per interval for both, and B and C ask the members nothing", async () => {
    // Real kazoo: a holder and a waiter whose watch on the holder only wchp shows.
    const lock = await kazooLockScenario({ hosts: ensemble.connectionString, path: `${LOCKS}/job`, waiters: 1 });
    try {
      const gatherer = gathererOf;
      const before = { b: memberRequests(b), c: memberRequests(c!), l: gatherer(l).shared.gatherings };
      const startedAt = Date.now();
      const waiterOn = async (keeper: RunningKeeper) => {
        const res = await call(keeper.url, 'GET', `/api/ensembles/home/locks?path=${LOCKS}`, viewer);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const answer = locksAnswerSchema.parse(res.body);
        return answer.locks.find((x) => x.path === `${LOCKS}/job`)?.contenders.find((x) => x.path === lock.waiters[0]!.path) ?? null;
      };
      // Both replicas' Locks views are looked at; each sees the waiter watching its blocker: evidence only wchp gives.
      for (const keeper of [b, c!]) {
        const seen = await waitFor(async () => ((await waiterOn(keeper))?.watching === 'blocker' ? true : null), {
          what: 'the waiter seen watching its blocker',
          timeoutMs: 30_000,
          intervalMs: 500,
        });
        expect(seen).toBe(true);
      }
      const elapsed = Date.now() - startedAt;
      const madeByL = gatherer(l).shared.gatherings - before.l;
      // One gathering per interval (less a second) for both, not one per replica.
      expect(gatherer(b).epoch).toBeGreaterThanOrEqual(1);
      expect(gatherer(c!).epoch).toBeGreaterThanOrEqual(1);
      expect(madeByL).toBeGreaterThanOrEqual(1);
      expect(madeByL).toBeLessThanOrEqual(Math.floor(elapsed / (LOCK_GATHER_MS - 1_000)) + 1);
      expect(gatherer(b).fallbacks + gatherer(c!).fallbacks).toBe(0);
      expect(memberRequests(b)).toBe(before.b);
      expect(memberRequests(c!)).toBe(before.c);
      // The same gatherings on both: what one is told, the other is.
      const asked = (keeper: RunningKeeper) => gatherer(keeper).gatherings.map((g) => g.askedAt);
      expect(
        asked(b)
          .filter((at) => at >= startedAt - LOCK_GATHER_MS)
          .every((at) => gatherer(l).shared.cached!.value.askedAt >= at),
      ).toBe(true);
      expect(new Set([...asked(b), ...asked(c!)].filter((at) => at >= startedAt)).size).toBeLessThanOrEqual(madeByL);
      // Only L, which publishes it, holds a whole gathering between rounds; B and C keep their part.
      expect(gatherer(l).shared.cached).not.toBeNull();
      expect(gatherer(b).shared.cached).toBeNull();
      expect(gatherer(c!).shared.cached).toBeNull();
    } finally {
      await lock.stop();
    }
  });
});

describe('what a follower serves, to whom', () => {
  async function linkCookie(ensembleViews: boolean): Promise<string> {
    await raw.mkdirp('/shared/app');
    const created = await call(l.url, 'POST', '/api/share-links', admin, {
      path: '/ensembles/home/znodes/shared/app',
      expiresInMinutes: 30,
      scope: { ensembleViews },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return waitFor(
      async () => {
        const opened = await fetch(`${b.url}${new URL(created.body.url).pathname}`, { redirect: 'manual' });
        return /keeper_session=[^;]+/.exec(opened.headers.get('set-cookie') ?? '')?.[0] ?? null;
      },
      { what: 'the link opens on B', timeoutMs: 5_000 },
    );
  }

  it('gives a share-link holder the ensemble views only when its link allows them, and nobody the published results through the tree', async () => {
    const narrow = await linkCookie(false);
    for (const view of ['members', 'sessions', 'watches']) {
      const res = await call(b.url, 'GET', `/api/ensembles/home/${view}`, { cookie: narrow });
      expect(res.status, view).toBe(403);
      expect(res.body.error.code, view).toBe('OUT_OF_SCOPE');
    }
    const socket = await TestBrowser.open(b.url, { headers: { cookie: narrow } });
    try {
      await expect(socket.subscribed('ensembleHealth', 'home', {})).rejects.toThrow(/refused/);
    } finally {
      socket.close();
    }
    const wide = await linkCookie(true);
    expect((await members(b, { cookie: wide })).polledBy).toBe(nameOf(l));
    expect((await call(b.url, 'GET', '/api/ensembles/home/members', {})).status).toBe(401);

    // The results (client addresses among them) sit under the root's ACL: no other client reads them, not even Keeper's console session.
    const id = l.ensembles.get('home').identity.current()!;
    const sessionsPath = `${ROOT}/ensembles/${id}/polled/sessions`;
    const refused = await new Promise<number | undefined>((resolve) =>
      raw.client.getData(sessionsPath, (error) => resolve((error as { code?: number } | null)?.code)),
    );
    expect(refused).toBe(zookeeper.Exception.NO_AUTH);
    const browse = await call(b.url, 'GET', `/api/ensembles/home/znodes${sessionsPath}`, admin);
    expect(browse.status).toBe(403);
    expect(browse.body.error.code).toBe('NO_AUTH');
  });
});

describe('bounds', () => {
  it('keeps every published znode under 64 KiB, pages a large result, and refuses one past the page bound to the replica that asked', async () => {
    const id = l.ensembles.get('home').identity.current()!;
    const store = b.replicas!.store;
    const polled = store.path('ensembles', id, 'polled');
    for (const kind of await store.children(polled)) {
      const stats = [
        await store.stat(`${polled}/${kind}`),
        ...(await Promise.all((await store.children(`${polled}/${kind}`)).map((n) => store.stat(`${polled}/${kind}/${n}`)))),
      ];
      for (const stat of stats) expect(stat!.dataLength, kind).toBeLessThanOrEqual(64 * 1024);
    }

    // A result of its own kind under a scratch ensemble id: three pages of what does not compress.
    const scratch = store.path('ensembles', 'bounds-test-0001');
    const self = { id: l.replicas!.id, name: nameOf(l) };
    const publisher = new PolledPublisher({
      store: l.replicas!.store,
      dir: `${scratch}/polled`,
      kind: 'sessions',
      self,
      term: 1,
      log: testLogger,
      onSuperseded: () => undefined,
    });
    const results: unknown[] = [];
    const follower = new PolledFollower({
      store,
      ensembleDir: scratch,
      kind: 'sessions',
      schema: z.array(z.string()),
      self: { id: b.replicas!.id, name: nameOf(b) },
      log: testLogger,
      askDeadlineMs: 5_000,
      onResult: (r) => results.push(r.value),
    });
    follower.start();
    try {
      // Base64 of random bytes: 6 bits in each character, so it deflates to about three quarters of its length, no smaller.
      const noise = (bytes: number) => Array.from({ length: Math.ceil(bytes / 1_000) }, () => randomBytes(750).toString('base64'));
      const big = noise(3.3 * PAGE_BYTES);
      expect(await publisher.publish(big, Date.now())).toBe(true);
      await waitFor(() => results.length === 1, { what: 'the paged result read back', timeoutMs: 10_000 });
      expect(results[0]).toEqual(big);
      const head = `${scratch}/polled/sessions`;
      expect((await store.children(head)).sort()).toEqual(['1', '2']);
      for (const n of ['', '/1', '/2']) expect((await store.stat(`${head}${n}`))!.dataLength).toBeLessThanOrEqual(64 * 1024);

      // Asked for a new gathering, the polling replica has one too large to share: the asker is told why, at once.
      const asking = follower.ask();
      const ask = await waitFor(
        async () => {
          const stat = await store.stat(`${scratch}/asks/sessions`);
          return stat && stat.version + 1;
        },
        { what: 'the ask written' },
      );
      expect(await publisher.publish(noise(((MAX_POLLED_PAGES + 1) * PAGE_BYTES) / 0.7), Date.now(), ask)).toBe(false);
      await expect(asking).rejects.toThrow(/too large to share.*pages; the bound is 16/);

      // A smaller result next: one page, and the pages the head no longer names are gone.
      expect(await publisher.publish(['small'], Date.now())).toBe(true);
      await waitFor(() => results.length === 2, { what: 'the one-page result read back', timeoutMs: 10_000 });
      expect(results[1]).toEqual(['small']);
      await waitFor(async () => (await store.children(head)).length === 0, { what: 'the surplus pages deleted', timeoutMs: 5_000 });
    } finally {
      publisher.stop();
      follower.close();
    }
  });
});

describe('when the polling replica stops', () => {
  it("says 'as of' within 3 s of the missed refresh when L goes silent, hands the polling to B once L's session has expired, and no browser sees a false live", async () => {
    const onB = await HealthWatcher.open(b);
    const onC = await HealthWatcher.open(c!);
    // Someone looks at the Locks view on B and on C all along, so their Locks rounds go on across the hand-over.
    const looking = setInterval(() => {
      for (const keeper of [b, c!]) void call(keeper.url, 'GET', `/api/ensembles/home/locks?path=${LOCKS}`, viewer).catch(() => undefined);
    }, 2_000);
    try {
      await call(c!.url, 'GET', `/api/ensembles/home/locks?path=${LOCKS}`, viewer);
      const roundsOnC = gathererOf(c!).epoch;
      await waitFor(() => onB.seen.length > 0 && onC.seen.length > 0, { what: 'both browsers have a round', timeoutMs: 5_000 });
      await waitFor(() => gathererOf(c!).epoch > roundsOnC && gathererOf(c!).gatherings.length > 0, { what: "C's Locks round from L", timeoutMs: 15_000 });
      const cRequests = commandsSent(c!);
      const cFallbacks = gathererOf(c!).fallbacks;
      const cutAt = Date.now();
      proxy.silenceAll();

      // B and C: L's last round, then within 3 s of the next one's due time a late mark ("as of" that round).
      for (const watcher of [onB, onC]) {
        const late = await waitFor(() => watcher.seen.find((e) => e.at >= cutAt && e.health.lateReason), { what: 'a late mark', timeoutMs: L_SESSION_MS });
        const lastLive = watcher.seen.filter((e) => e.at <= late.at && !e.health.lateReason).at(-1)!;
        expect(lastLive.health.polledBy).toBe(nameOf(l));
        expect(late.at - lastLive.at).toBeLessThanOrEqual(LATE_WITHIN_MS);
        expect(late.health.polledAt).toBe(lastLive.health.polledAt);
        expect(late.health.lateReason).toMatch(new RegExp(`${nameOf(l)} polls the members for every replica, and has published nothing for \\d+ s`));
      }
      // B was next in line: it polls once ZooKeeper has ended L's session (its timeout after the cut), not before.
      await waitFor(() => modeOf(b) === 'lead', { what: 'B leads', timeoutMs: L_SESSION_MS + 10_000 });
      const tookOverAt = Date.now();
      expect(tookOverAt - cutAt).toBeGreaterThanOrEqual(L_SESSION_MS - 2_000);
      const own = await waitFor(() => onB.seen.find((e) => e.at >= tookOverAt && !e.health.lateReason && e.health.polledBy === undefined), {
        what: "B's own round",
        timeoutMs: 5_000,
      });
      expect(own.health.polledAt).toBeGreaterThanOrEqual(tookOverAt - 1_000);
      const fromB = await waitFor(() => onC.seen.find((e) => e.at >= tookOverAt && !e.health.lateReason && e.health.polledBy === nameOf(b)), {
        what: "C shows B's rounds",
        timeoutMs: 5_000,
      });
      expect(fromB.health.polledAt).toBeGreaterThanOrEqual(tookOverAt - 1_000);
      expect(onB.liveGaps(cutAt - 5_000)).toEqual([]);
      expect(onC.liveGaps(cutAt - 5_000)).toEqual([]);

      // L, cut off, polled on its own all along (its browsers' view stayed live); healed, it finds its session expired and follows B.
      proxy.heal();
      await waitFor(() => modeOf(l) === 'follow' && !monitorOf(l).poller.polling, { what: 'L follows', timeoutMs: 30_000 });
      await waitFor(async () => (await members(l)).polledBy === nameOf(b), { what: "L shows B's rounds", timeoutMs: 10_000 });
      // C's Locks evidence came from L, then from B: C asked the members nothing through the whole hand-over
      // (B, just elected, answers C's asks though its own last round asked L moments before).
      await waitFor(() => gathererOf(c!).gatherings.at(-1)!.askedAt >= tookOverAt, { what: "C's Locks round from B", timeoutMs: LOCK_GATHER_MS + 10_000 });
      expect(gathererOf(c!).fallbacks).toBe(cFallbacks);
      expect(commandsSent(c!)).toEqual(cRequests);
    } finally {
      clearInterval(looking);
      onB.close();
      onC.close();
    }
  });

  it('hands the polling to C at once when B closes (its session ends with it), and C’s browsers see no false live', async () => {
    const onC = await HealthWatcher.open(c!);
    try {
      await waitFor(() => onC.seen.some((e) => e.health.polledBy === nameOf(b)), { what: "C's browser has B's round", timeoutMs: 5_000 });
      const closedAt = Date.now();
      await b.close();
      await waitFor(() => modeOf(c!) === 'lead', { what: 'C leads', timeoutMs: SESSION_MS });
      const own = await waitFor(() => onC.seen.find((e) => e.at >= closedAt && !e.health.lateReason && e.health.polledBy === undefined), {
        what: "C's own round",
        timeoutMs: 5_000,
      });
      expect(own.at - closedAt).toBeLessThan(SESSION_MS);
      expect(onC.liveGaps(closedAt - 5_000)).toEqual([]);
      // L, next in line after C, shows C's rounds now.
      await waitFor(async () => (await members(l)).polledBy === nameOf(c!), { what: "L shows C's rounds", timeoutMs: 10_000 });
    } finally {
      onC.close();
    }
  });
});

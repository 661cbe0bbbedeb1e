/**
 * sharedPolling when the home ensemble goes away (docs/operating/replicas.md): two replicas watch a
 * production ensemble (a shared pool ensemble, named "prod") and keep their state in a
 * one-member home ensemble of their own. A polls both for both; the home ensemble stopped, B's
 * browsers get the late mark within 3 s of the missed refresh, and once the state session has
 * been away for its timeout each replica polls on its own (live again, never a stale round shown
 * as live); the home ensemble back, one replica polls for both again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverMessageSchema, type EnsembleHealth } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { KeeperOptions } from '../src/config/types.js';
import { ensembleConfigOf, leaseSharedEnsemble, PORT_OFFSETS, startTestEnsemble, type SharedEnsemble } from './support/testEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';

const ADMIN = 'polling-away-admin-token-0123456789';
const SECRET = 'polling-away-cluster-secret-0123456789-ab';
const POLL_MS = 1_000;
const SESSION_MS = 4_000;
const LATE_WITHIN_MS = POLL_MS + 3_000;

let home: Awaited<ReturnType<typeof startTestEnsemble>>;
let prod: SharedEnsemble;
let a: RunningKeeper;
let b: RunningKeeper;
const stateDirs: string[] = [];

function start(): Promise<RunningKeeper> {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-polling-away-it-'));
  stateDirs.push(stateDir);
  const options: KeeperOptions = {
    host: '127.0.0.1',
    port: 0,
    ensembles: [ensembleConfigOf(home, { name: 'home' }), ensembleConfigOf(prod, { name: 'prod' })],
    auth: { stateDir, adminToken: ADMIN },
    replicas: { stateEnsemble: 'home', root: '/keeper/replicas', secret: SECRET, sharedPolling: true },
  };
  return startKeeper(options, { logger: testLogger, gatewayDefaults: { sessionTimeoutMs: SESSION_MS }, ensembleDefaults: { pollIntervalMs: POLL_MS } });
}

const modeOf = (keeper: RunningKeeper, name: string) => keeper.replicas!.polling!.modes()[name];
const pollerOf = (keeper: RunningKeeper, name: string) => keeper.ensembles.get(name).monitor.poller;
const nameOf = (keeper: RunningKeeper) => `${hostname()}:${keeper.port}`;

beforeAll(async () => {
  [home, prod] = await Promise.all([startTestEnsemble(PORT_OFFSETS.sharedPollingHomeTest, { size: 1 }), leaseSharedEnsemble()]);
  a = await start();
  await waitFor(() => modeOf(a, 'prod') === 'lead' && modeOf(a, 'home') === 'lead', { what: 'A polls both', timeoutMs: 30_000 });
  b = await start();
  await waitFor(() => pollerOf(b, 'prod').current()?.polledBy === nameOf(a), { what: "B shows A's rounds of prod", timeoutMs: 30_000 });
}, 180_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([home?.dispose(), prod?.dispose()]);
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

describe('the home ensemble away', () => {
  it('says "as of" within 3 s of the missed refresh, then has each replica poll on its own, and one polls for both again once it is back', async () => {
    expect(pollerOf(b, 'prod').polling).toBe(false);
    expect(pollerOf(b, 'home').polling).toBe(false);
    const browser = await TestBrowser.open(b.url, { headers: { authorization: `Bearer ${ADMIN}` } });
    const seen: { at: number; health: EnsembleHealth }[] = [];
    browser.socket.on('message', (data) => {
      const message = serverMessageSchema.parse(JSON.parse(data.toString()));
      if (message.type !== 'batch') return;
      for (const e of message.events)
        if (e.topic === 'ensembleHealth' && e.ensemble === 'prod' && e.event.kind === 'health') seen.push({ at: Date.now(), health: e.event.health });
    });
    try {
      await browser.subscribed('ensembleHealth', 'prod', {});
      await waitFor(() => seen.length > 0, { what: 'a round of prod on B' });
      const stoppedAt = Date.now();
      await home.stopAll();

      const late = await waitFor(() => seen.find((e) => e.at >= stoppedAt && e.health.lateReason), { what: 'the late mark', timeoutMs: SESSION_MS + 2_000 });
      const lastLive = seen.filter((e) => e.at <= late.at && !e.health.lateReason).at(-1)!;
      expect(lastLive.health.polledBy).toBe(nameOf(a));
      expect(late.at - lastLive.at).toBeLessThanOrEqual(LATE_WITHIN_MS);
      // Away for its session timeout: B polls prod itself, and shows it live again by its own rounds.
      const own = await waitFor(() => seen.find((e) => e.at > late.at && !e.health.lateReason && e.health.polledBy === undefined), {
        what: "B's own round of prod",
        timeoutMs: SESSION_MS + 10_000,
      });
      expect(own.at - stoppedAt).toBeGreaterThanOrEqual(SESSION_MS - 1_000);
      expect(modeOf(b, 'prod')).toBe('local');
      // The home ensemble itself: B's own poller says what it is (down), rather than A's last round.
      await waitFor(
        () =>
          pollerOf(b, 'home')
            .current()
            ?.members.every((m) => m.state === 'down' || m.state === 'unreachable'),
        {
          what: 'B sees the home ensemble down',
          timeoutMs: 10_000,
        },
      );
      const gaps = seen
        .filter((e, i) => e.at >= stoppedAt - 5_000 && !e.health.lateReason && (seen[i + 1]?.at ?? Date.now()) - e.at > LATE_WITHIN_MS)
        .map((e) => ({ at: e.at, polledBy: e.health.polledBy }));
      expect(gaps).toEqual([]);

      await home.startAll();
      // Back: the election decides again, and only one of the two polls each ensemble.
      await waitFor(
        () => ['home', 'prod'].every((name) => [a, b].filter((k) => pollerOf(k, name).polling).length === 1 && [a, b].some((k) => modeOf(k, name) === 'lead')),
        { what: 'one replica polling for both again', timeoutMs: 30_000 },
      );
      const follower = [a, b].find((k) => modeOf(k, 'prod') === 'follow')!;
      const leader = [a, b].find((k) => k !== follower)!;
      await waitFor(() => pollerOf(follower, 'prod').current()?.polledBy === nameOf(leader) && !pollerOf(follower, 'prod').current()?.lateReason, {
        what: "the follower shows the leader's rounds",
        timeoutMs: 10_000,
      });
    } finally {
      browser.close();
    }
  });
});

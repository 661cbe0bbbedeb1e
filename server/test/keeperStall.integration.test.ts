/**
 * Keeper's own stall is not blamed on a member (issue 22 item 16). After SIGCONT of a frozen Keeper
 * the page flashed "ZooKeeper member 127.0.0.1:2193 is not answering" for 100-250 ms: on waking,
 * Node runs due timers before it reads sockets, so the liveness check and the poller's deadlines
 * judged by wall time since the last answer while the members' answers sat unread. Here Keeper's
 * event loop is blocked in-process for 3 s, as SIGSTOP or a long GC pause would hold it, on a
 * real ensemble: nothing a browser is sent in the seconds after may call a member unconfirmed or
 * unreachable, and a four-letter word asked just before the stall is answered, not timed out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { fourLetterWord } from '../src/members/wire.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

const STALL_MS = 3_000;
/** Long enough for every timer that was due during the stall to have fired, and the next checks after it. */
const WATCH_AFTER_MS = 2_500;

/** Holds Keeper's event loop, as a frozen process or a long GC pause does: no timer, no socket read. */
function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // Busy: nothing else in this process runs.
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let browser: TestBrowser;

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.keeperStallTest);
  keeper = await startKeeper(
    { host: '127.0.0.1', port: 0, ensembles: [ensembleConfigOf(ensemble)] },
    { logger: testLogger, ensembleDefaults: { pollIntervalMs: 1_000 } },
  );
  await waitFor(() => keeper.ensembles.get('it').gateway.session.state === 'connected', { what: 'console connected', timeoutMs: 30_000 });
  browser = await TestBrowser.open(keeper.url);
  await browser.subscribed('consoleSession', 'it', {});
  await browser.subscribed('ensembleHealth', 'it', {});
  await waitFor(
    () => {
      const health = browser
        .topicEvents('ensembleHealth', 'it')
        .flatMap((e) => (e.event.kind === 'health' ? [e.event.health] : []))
        .at(-1);
      return health?.members.filter((m) => m.state === 'leader' || m.state === 'follower').length === 3;
    },
    { what: 'all three members polled serving', timeoutMs: 30_000 },
  );
}, 120_000);

afterAll(async () => {
  browser?.close();
  await keeper?.close();
  await ensemble?.dispose();
}, 60_000);

describe("a 3 s stall of Keeper's own event loop", () => {
  it('is not reported as an unconfirmed member or an unreachable one, and a 4lw asked just before it is answered', async () => {
    const gateway = keeper.ensembles.get('it').gateway;
    const published: ConsoleSessionSnapshot[] = [];
    gateway.on('session', (s) => published.push(s));
    const eventsBefore = browser.events.length;
    const member = ensemble.members[0]!;
    // Out before the stall; its answer arrives while Keeper stands still.
    const asked = fourLetterWord(member.host, member.clientPort, 'srvr', 2_000);

    blockEventLoop(STALL_MS);
    await sleep(WATCH_AFTER_MS);

    const answer = await asked;
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    expect(published.map((s) => s.state)).not.toContain('unconfirmed');
    const after = browser.events.slice(eventsBefore);
    const sessionStates = after.flatMap((e) => (e.topic === 'consoleSession' ? [e.event.session.state] : []));
    expect(sessionStates).not.toContain('unconfirmed');
    const memberStates = after.flatMap((e) => (e.topic === 'ensembleHealth' && e.event.kind === 'health' ? e.event.health.members.map((m) => m.state) : []));
    expect(memberStates.length).toBeGreaterThan(0);
    expect(memberStates.filter((s) => s === 'unreachable' || s === 'down')).toEqual([]);
    expect(gateway.session.state).toBe('connected');
  });

  it('still says unconfirmed when the member itself stops answering', async () => {
    // The other side of the rule: a member that is really silent is named within 3 s, stall or not.
    const gateway = keeper.ensembles.get('it').gateway;
    const port = Number(gateway.session.member?.split(':')[1]);
    const frozen = ensemble.members.find((m) => m.clientPort === port)!;
    const published: { at: number; state: string }[] = [];
    gateway.on('session', (s) => published.push({ at: Date.now(), state: s.state }));
    ensemble.pauseMember(frozen.id);
    const frozenAt = Date.now();
    try {
      blockEventLoop(1_000);
      await waitFor(() => published.some((p) => p.state === 'unconfirmed'), { what: 'unconfirmed', timeoutMs: 10_000, intervalMs: 50 });
      expect(published.find((p) => p.state === 'unconfirmed')!.at - frozenAt).toBeLessThanOrEqual(4_000);
    } finally {
      ensemble.resumeMember(frozen.id);
    }
    await waitFor(() => gateway.session.state === 'connected', { what: 'connected again', timeoutMs: 30_000 });
  });
});

/**
 * Member and session data fresh and true, against a real ensemble and real kazoo clients:
 *  - a member SIGKILLed is shown down, checked every few seconds while it is (never a 30 s
 *    back-off), and shown serving within ~6 s of answering again after its restart; with the
 *    poller's production defaults (5 s polls, 5 s back-off cap);
 *  - a kazoo session (30 s timeout) whose Python process is frozen with SIGSTOP is flagged
 *    silent well before 20 s (2/3 of its timeout), while an idle live kazoo session with the
 *    same timeout is never flagged over the same period;
 *  - reads after the sessions are a cadence old gather anew, once for many readers.
 * The first two watch windows of fixed length (25 s down, 34 s of sessions) and run side by side:
 * the killed member is a follower, and the kazoo clients are on the two other members.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { membersAnswerSchema, sessionsAnswerSchema, silentThresholdMs, type MembersAnswer, type SessionsAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { fourLetterWord, parseSrvrMode } from '../../scripts/sandbox/index.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { holdSessions, type HeldSessions } from '../../scripts/lib/kazoo/index.js';

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

// Sessions of 30 s (tickTime 500 would otherwise cap them at 10 s).
const EXTRA_CONFIG = { maxSessionTimeout: '60000' };
// The poller keeps its production defaults (5 s polls, DEFAULT_MEMBER_BACKOFF_MAX_MS); sessions
// may be gathered every second here so a silence is seen as soon as the rule allows.
const SETTINGS = { sessionsMinIntervalMs: 1_000, sessionsCadenceMs: 3_000 };
const KAZOO_TIMEOUT_S = 30;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getJson(keeper: RunningKeeper, path: string): Promise<unknown> {
  const res = await fetch(`${keeper.url}${path}`);
  expect(res.status).toBe(200);
  return res.json();
}

const members = async (keeper: RunningKeeper): Promise<MembersAnswer> => membersAnswerSchema.parse(await getJson(keeper, '/api/ensembles/mf/members'));
const sessions = async (keeper: RunningKeeper, refresh: boolean): Promise<SessionsAnswer> =>
  sessionsAnswerSchema.parse(await getJson(keeper, `/api/ensembles/mf/sessions${refresh ? '?refresh=true' : ''}`));

const SERVING = new Set(['leader', 'follower', 'observer', 'standalone']);

/** One idle kazoo client in its own Python process, so that process alone can be frozen. */
async function idleKazoo(hosts: string, timeoutS: number): Promise<HeldSessions & { sessionId: string }> {
  const held = await holdSessions([{ hosts, timeout: timeoutS }]);
  return { ...held, sessionId: held.ids[0]! };
}

describe('member and session freshness on a real ensemble', () => {
  let ensemble: Ensemble;
  let keeper: RunningKeeper;
  const kazoos: HeldSessions[] = [];
  /** The follower the first test kills; the kazoo clients of the second are on the two others. */
  let killed: number;

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.memberFreshnessTest, { extraConfig: EXTRA_CONFIG });
    keeper = await startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [
          {
            name: 'mf',
            connectionString: ensemble.connectionString,
            members: ensemble.members.map((m) => ({ host: m.host, clientPort: m.clientPort, adminPort: m.adminPort })),
          },
        ],
      },
      { logger: testLogger, ensembleDefaults: SETTINGS },
    );
    await waitFor(() => keeper.ensembles.get('mf').gateway.session.state === 'connected', { what: 'console connected', timeoutMs: 30_000 });
    await waitFor(async () => (await members(keeper)).quorum.votersServing === 3, { what: 'three members serving', timeoutMs: 30_000, intervalMs: 500 });
    const leader = (await ensemble.leaderId())!;
    killed = [1, 2, 3].find((m) => m !== leader)!;
  }, 120_000);

  afterAll(async () => {
    for (const k of kazoos) await k.kill();
    await keeper?.close();
    await ensemble?.dispose();
  }, 60_000);

  it.concurrent(
    'shows a killed member down, checked every few seconds, and serving within ~6 s of it answering again',
    async ({ expect }) => {
      const id = killed;
      const { host, clientPort } = ensemble.member(id);
      const address = `${host}:${clientPort}`;
      const find = (body: MembersAnswer) => body.members.find((m) => m.address === address)!;

      await ensemble.killMember(id);
      const killedAt = Date.now();
      // The window before recovery: down, never serving, and its state never older than about one back-off cap.
      const before: { at: number; state: string; age: number }[] = [];
      while (Date.now() - killedAt < 25_000) {
        const m = find(await members(keeper));
        before.push({ at: Date.now(), state: m.state, age: Date.now() - m.polledAt });
        await sleep(250);
      }
      const firstDown = before.find((s) => s.state === 'down');
      expect(firstDown, 'shown down').toBeDefined();
      expect(firstDown!.at - killedAt).toBeLessThan(7_000);
      const whileDown = before.filter((s) => s.at >= firstDown!.at);
      expect(whileDown.every((s) => s.state === 'down')).toBe(true);
      // 5 s polls, a 5 s cap: checked at least every ~5 s (plus a round's own time), not every 30 s.
      const oldest = Math.max(...whileDown.map((s) => s.age));
      expect(oldest).toBeLessThan(7_500);
      const shown = find(await members(keeper));
      expect(shown.nextPollAt! - shown.polledAt).toBeLessThanOrEqual(5_500);

      // Restart; the test asks the member itself (srvr every 100 ms) when it serves again.
      await ensemble.startMember(id, { waitServing: false });
      let answeredAt: number | null = null;
      let shownAt: number | null = null;
      const notYet: string[] = [];
      const deadline = Date.now() + 60_000;
      const probe = (async () => {
        while (answeredAt === null && Date.now() < deadline) {
          const mode = await fourLetterWord(host, clientPort, 'srvr', 1_000).then(parseSrvrMode, () => null);
          if (mode !== null) answeredAt = Date.now();
          else await sleep(100);
        }
      })();
      while (shownAt === null && Date.now() < deadline) {
        const m = find(await members(keeper));
        if (SERVING.has(m.state)) shownAt = Date.now();
        else if (answeredAt === null) notYet.push(m.state);
        await sleep(200);
      }
      await probe;
      expect(answeredAt, 'the member answered again').not.toBeNull();
      expect(shownAt, 'Keeper showed it serving').not.toBeNull();
      // Before it answered, Keeper said why it was out (down, then perhaps not serving while it synced).
      expect(notYet.length).toBeGreaterThan(0);
      expect(notYet.every((s) => s === 'down' || s === 'not-serving' || s === 'unreachable')).toBe(true);
      const lag = shownAt! - answeredAt!;
      console.log(`member ${id}: checked at most ${oldest} ms ago while down; shown serving ${lag} ms after it answered srvr again`);
      expect(lag).toBeLessThan(6_500);
    },
    120_000,
  );

  it.concurrent(
    'flags a frozen kazoo client silent well before 2/3 of its timeout, and never an idle live one',
    async ({ expect }) => {
      const [m1, m2] = ensemble.members.filter((m) => m.id !== killed).map((m) => `${m.host}:${m.clientPort}`);
      const frozen = await idleKazoo(m1!, KAZOO_TIMEOUT_S);
      kazoos.push(frozen);
      const live = await idleKazoo(m2!, KAZOO_TIMEOUT_S);
      kazoos.push(live);
      const flagged = (body: SessionsAnswer, sessionId: string) => {
        const s = body.sessions.find((x) => x.sessionId === sessionId);
        return s ? s.flags.some((f) => f.kind === 'silent-near-timeout') : null;
      };
      const samples: { at: number; frozen: boolean | null; live: boolean | null; body: SessionsAnswer }[] = [];
      const sample = async () => {
        const body = await sessions(keeper, true);
        samples.push({ at: Date.now(), frozen: flagged(body, frozen.sessionId), live: flagged(body, live.sessionId), body });
        await sleep(1_000);
      };

      // Both alive and idle for longer than a ping interval (10 s): neither is flagged.
      await waitFor(
        async () => (await sessions(keeper, true)).sessions.filter((s) => s.sessionId === frozen.sessionId || s.sessionId === live.sessionId).length === 2,
        {
          what: 'both kazoo sessions listed',
          timeoutMs: 20_000,
          intervalMs: 1_000,
        },
      );
      const aliveFrom = Date.now();
      while (Date.now() - aliveFrom < 14_000) await sample();
      expect(samples.filter((s) => s.frozen !== false || s.live !== false)).toEqual([]);

      frozen.freeze();
      const stoppedAt = Date.now();
      while (Date.now() - stoppedAt < 20_000) await sample();
      frozen.thaw();

      const after = samples.filter((s) => s.at > stoppedAt);
      const first = after.find((s) => s.frozen === true);
      expect(first, 'the frozen client flagged').toBeDefined();
      const flaggedAfter = first!.at - stoppedAt;
      console.log(
        `frozen kazoo (timeout ${KAZOO_TIMEOUT_S} s) flagged silent ${flaggedAfter} ms after SIGSTOP (rule: > ${silentThresholdMs(KAZOO_TIMEOUT_S * 1000)} ms silent); ${samples.length} gatherings`,
      );
      // Well before 20 s (2/3 of 30 s, where the old rule flagged it): its last answer was at most a ping (10 s) before the freeze.
      expect(flaggedAfter).toBeLessThan(16_500);
      // Once flagged it stays flagged while frozen, and the message says the rule.
      expect(after.filter((s) => s.at >= first!.at).every((s) => s.frozen === true)).toBe(true);
      const message = first!.body.sessions.find((s) => s.sessionId === frozen.sessionId)!.flags.find((f) => f.kind === 'silent-near-timeout')!.message;
      expect(message).toContain('pings every third of its 30 s timeout (10 s)');
      // The idle live client, same timeout, same period: never flagged, in any gathering.
      expect(samples.length).toBeGreaterThan(20);
      expect(samples.filter((s) => s.live !== false)).toEqual([]);
    },
    120_000,
  );

  it('gathers anew on a read once the sessions are a cadence old: ten readers at once cost one gathering', async () => {
    const monitor = keeper.ensembles.get('mf').monitor;
    const last = await sessions(keeper, false);
    await sleep(SETTINGS.sessionsCadenceMs + 500);
    const before = monitor.sessions.gatherings;
    const readAt = Date.now();
    const answers = await Promise.all(Array.from({ length: 10 }, () => sessions(keeper, false)));
    expect(monitor.sessions.gatherings - before).toBe(1);
    expect(new Set(answers.map((a) => a.gatheredAt)).size).toBe(1);
    expect(answers[0]!.gatheredAt!).toBeGreaterThan(last.gatheredAt!);
    expect(answers[0]!.gatheredAt!).toBeGreaterThanOrEqual(readAt);
    // Right after, a read answers from that gathering and says when the next read will gather.
    const again = await sessions(keeper, false);
    expect(again.gatheredAt).toBe(answers[0]!.gatheredAt);
    expect(monitor.sessions.gatherings - before).toBe(1);
    expect(again.nextGatherInSeconds).toBeGreaterThan(0);
    expect(again.cadenceSeconds).toBe(3);
  });
});

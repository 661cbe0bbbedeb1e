/**
 * A member at its connection limit is not down (issue 14 item 3), on a real ensemble whose
 * members allow few connections per client address (maxClientCnxns). One follower is filled to
 * the cap with idle kazoo sessions from 127.0.0.1, Keeper's own address here, so it closes
 * Keeper's four-letter words at once while it serves those sessions:
 *  - with four-letter words only (a connection string, no AdminServer), the leader's synced
 *    followers vouch for it: it keeps its role, counts as serving in the quorum and the what-if,
 *    and carries the maxClientCnxns sentence, throughout the window and not only at its end;
 *  - with AdminServers configured, the sessions' connections per host (cons through the
 *    AdminServer, not under the cap) raise the connection-limit alert;
 *  - a member truly stopped meanwhile is still down, never credited;
 *  - released, the member is plainly serving again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxClientCnxnsFromAdmin, membersAnswerSchema, sessionsAnswerSchema, sizingAnswerSchema, type MembersAnswer } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { fourLetterWord } from '../src/members/wire.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { holdSessions, type HeldSessions } from '../../scripts/lib/kazoo/index.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

const MAX_CNXNS = 12;
const EXTRA_CONFIG = { maxClientCnxns: String(MAX_CNXNS), maxSessionTimeout: '60000' };
const SETTINGS = { pollIntervalMs: 1_000, maxBackoffMs: 3_000, sessionsMinIntervalMs: 1_000 };
const SENTENCE = `refuses new connections from Keeper's address: maxClientCnxns (${MAX_CNXNS} per address) reached`;
const SERVING = new Set(['leader', 'follower', 'observer', 'standalone']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getJson(keeper: RunningKeeper, path: string): Promise<unknown> {
  const res = await fetch(`${keeper.url}${path}`);
  expect(res.status).toBe(200);
  return res.json();
}

const members = async (keeper: RunningKeeper, name: string): Promise<MembersAnswer> =>
  membersAnswerSchema.parse(await getJson(keeper, `/api/ensembles/${name}/members`));

/** Three tries a little apart, all closed at once: the member is at its cap for 127.0.0.1 (a poll's passing connection cannot fake that). */
async function closesAtOnce(host: string, port: number): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    const answer = await fourLetterWord(host, port, 'srvr', 2_000);
    // Reset (NIO) before or after the word was sent: an error, or a close with nothing read.
    if (answer.ok ? answer.text !== '' : answer.kind !== 'closed') return false;
    await sleep(150);
  }
  return true;
}

describe('a member at maxClientCnxns on a real ensemble', () => {
  let ensemble: Ensemble;
  let keeper: RunningKeeper;
  const held: HeldSessions[] = [];
  let target: { id: number; address: string; host: string; clientPort: number };
  let other: number;

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.maxCnxnsTest, { extraConfig: EXTRA_CONFIG });
    keeper = await startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [
          // The case: four-letter words only.
          { name: 'mc', connectionString: ensemble.connectionString },
          // With AdminServers: cons is read through them when the client port closes at once.
          {
            name: 'mca',
            connectionString: ensemble.connectionString,
            members: ensemble.members.map((m) => ({ host: m.host, clientPort: m.clientPort, adminPort: m.adminPort })),
          },
        ],
      },
      { logger: testLogger, ensembleDefaults: SETTINGS },
    );
    for (const name of ['mc', 'mca']) {
      await waitFor(() => keeper.ensembles.get(name).gateway.session.state === 'connected', { what: `${name} console connected`, timeoutMs: 30_000 });
      await waitFor(async () => (await members(keeper, name)).quorum.votersServing === 3, {
        what: `${name}: three serving`,
        timeoutMs: 30_000,
        intervalMs: 300,
      });
    }
    const leader = (await ensemble.leaderId())!;
    const [id, second] = [1, 2, 3].filter((n) => n !== leader) as [number, number];
    other = second;
    const m = ensemble.member(id);
    target = { id, host: m.host, clientPort: m.clientPort, address: `${m.host}:${m.clientPort}` };
  }, 120_000);

  afterAll(async () => {
    for (const h of held) await h.kill();
    await keeper?.close();
    await ensemble?.dispose();
  }, 60_000);

  it('reads the cap from the AdminServer as from conf', async () => {
    const { adminPort, host } = ensemble.member(target.id);
    const body = (await (await fetch(`http://${host}:${adminPort}/commands/configuration`)).json()) as Record<string, unknown>;
    expect(maxClientCnxnsFromAdmin(body)).toBe(MAX_CNXNS);
  });

  it('keeps a follower filled to the cap serving, counted in the quorum and the what-if, with the maxClientCnxns sentence; a stopped member is still down', async () => {
    // Fill it with idle sessions, one process at a time, until it closes new connections at once.
    while (!(await closesAtOnce(target.host, target.clientPort))) {
      expect(held.length, 'sessions needed to reach the cap').toBeLessThanOrEqual(MAX_CNXNS);
      try {
        held.push(await holdSessions([{ hosts: target.address, timeout: 30 }], { readyWithinMs: 10_000 }));
      } catch (error) {
        console.log(`holding session ${held.length + 1} failed: ${String(error)}`);
        break; // the cap was reached between the check and the connection
      }
    }
    expect(await closesAtOnce(target.host, target.clientPort)).toBe(true);
    const filledAt = Date.now();

    // The window while it is full: every answer, not only the last.
    const seen: MembersAnswer[] = [];
    while (Date.now() - filledAt < 10_000) {
      seen.push(await members(keeper, 'mc'));
      await sleep(250);
    }
    for (const body of seen) {
      const m = body.members.find((x) => x.address === target.address)!;
      expect(m.role, JSON.stringify(m)).toBe('follower');
      expect(body.quorum.votersServing).toBe(3);
      expect(body.quorum.sentence).toBe('3 of 3 voters serving; tolerates 1 failure');
      expect(body.alerts.map((a) => a.id).filter((id) => id === 'at-edge' || id.startsWith('unreachable:'))).toEqual([]);
    }
    // After the first poll that found it full, it says why Keeper has no figures from it.
    const withSentence = seen.filter((b) => b.members.find((x) => x.address === target.address)!.detail?.startsWith(SENTENCE));
    expect(withSentence.length).toBeGreaterThan(0);
    expect(seen.indexOf(withSentence[0]!)).toBeLessThan(10);
    expect(seen.slice(seen.indexOf(withSentence[0]!)).every((b) => withSentence.includes(b))).toBe(true);
    const last = seen.at(-1)!;
    const full = last.members.find((x) => x.address === target.address)!;
    expect(full.connectionLimit).toMatchObject({ maxClientCnxns: MAX_CNXNS, evidence: expect.arrayContaining(['synced-followers']) });
    expect(last.alerts.find((a) => a.id === `refuses-keeper:${target.address}`)?.title).toContain(SENTENCE);

    // The what-if counts it as serving: the other follower may go down and the quorum holds.
    const sizing = sizingAnswerSchema.parse(await getJson(keeper, `/api/ensembles/mc/sizing?down=${other}`));
    expect(sizing.whatIf).toMatchObject({ quorumHolds: true, canLoseAfter: 0 });

    // With AdminServers, the sessions on it are read through them, and their count per host raises the alert.
    const sessions = sessionsAnswerSchema.parse(await getJson(keeper, '/api/ensembles/mca/sessions?refresh=true'));
    expect(sessions.gaps.filter((g) => g.member === target.address)).toEqual([]);
    expect(sessions.sessions.filter((s) => s.member === target.address).length).toBeGreaterThanOrEqual(Math.ceil(MAX_CNXNS * 0.8));
    const alert = await waitFor(async () => (await members(keeper, 'mca')).alerts.find((a) => a.id === `cnxn-limit:${target.address}:127.0.0.1`), {
      what: 'the connection-limit alert',
      timeoutMs: 10_000,
      intervalMs: 300,
    });
    expect(alert!.title).toMatch(new RegExp(`: \\d+ of ${MAX_CNXNS} connections from 127\\.0\\.0\\.1 \\(maxClientCnxns\\)`));
    expect((await members(keeper, 'mca')).members.find((x) => x.address === target.address)!.role).toBe('follower');

    // No false positive: the other follower, stopped for real, is down, while the full one still serves.
    await ensemble.stopMember(other);
    const otherAddress = `${ensemble.member(other).host}:${ensemble.member(other).clientPort}`;
    const stopped = await waitFor(
      async () => {
        const b = await members(keeper, 'mc');
        return b.members.find((x) => x.address === otherAddress)!.role === 'down' ? b : null;
      },
      { what: 'the stopped member down', timeoutMs: 15_000, intervalMs: 300 },
    );
    expect(stopped!.members.find((x) => x.address === otherAddress)!.connectionLimit ?? null).toBeNull();
    expect(stopped!.members.find((x) => x.address === target.address)!.role).toBe('follower');
    expect(stopped!.quorum.sentence).toBe('2 of 3 voters serving; tolerates 1 failure, none left now');
    await ensemble.startMember(other);
  }, 180_000);

  it('shows it plainly serving again once the sessions are released', async () => {
    for (const h of held.splice(0)) await h.release();
    const body = await waitFor(
      async () => {
        const b = await members(keeper, 'mc');
        const m = b.members.find((x) => x.address === target.address)!;
        return SERVING.has(m.role) && m.detail === null && !m.connectionLimit && b.quorum.votersServing === 3 ? b : null;
      },
      { what: 'plain serving again', timeoutMs: 20_000, intervalMs: 300 },
    );
    expect(body!.members.find((x) => x.address === target.address)!.source).toBe('4lw');
    expect(body!.alerts.filter((a) => a.id.startsWith('refuses-keeper:'))).toEqual([]);
  }, 60_000);
});

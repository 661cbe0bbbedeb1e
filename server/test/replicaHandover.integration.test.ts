/**
 * Workflows survive their replica (issue 21, item 3; docs/operating/replicas.md): two Keeper replicas, each
 * its own process, share one real 3-member ensemble as their home ensemble and as the ensemble
 * they upgrade. The upgrade starts on A; a browser follows it on B (B mirrors what A stores).
 * A is killed (SIGKILL) while its first restart command runs. B takes the upgrade over once A's
 * state session has expired (the owner znode goes with it), waits for A's upgrade lock to expire
 * too, waits for the command A left running rather than restarting that member again, and
 * finishes: each member restarted exactly once (the command appends each member's id to a file),
 * and the hand-over is in the timeline the browser on B was sent, at ZooKeeper's time.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPageSchema, replicasAnswerSchema, upgradeAnswerSchema, type UpgradeAnswer } from '@keeper/shared';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { QUICK_UPGRADES, startReplicaPair, type KeeperProcess } from './support/keeperProcess.js';
import { call, type Who } from './support/http.js';
import { TestBrowser } from './support/wsClient.js';
import { waitFor } from './support/waitFor.js';

const ADMIN = 'handover-admin-token-0123456789';
const SECRET = 'handover-cluster-secret-0123456789-abcdef';
const admin: Who = { token: ADMIN };
const REPO = resolve(import.meta.dirname, '../..');
const TSX = join(REPO, 'node_modules', '.bin', 'tsx');
/** Every session of both replicas (console and state): A's end 5 s after the kill. */
const SESSION_MS = 5_000;

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let dir: string;
const replicas: KeeperProcess[] = [];

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.replicaHandoverTest);
  dir = mkdtempSync(join(tmpdir(), 'keeper-handover-'));
}, 180_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await ensemble?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const read = async (url: string, id: string): Promise<UpgradeAnswer> =>
  upgradeAnswerSchema.parse((await call(url, 'GET', `/api/ensembles/home/upgrades/${id}`, admin)).body);

describe('an upgrade whose replica is killed', () => {
  it('is taken over by the other replica once its sessions end, restarts no member twice, and says so in every timeline', async () => {
    const restartsLog = join(dir, 'restarts.log');
    const go = join(dir, 'go');
    // The first command holds its member's restart until A is dead; the later ones find `go` and restart at once.
    const line = `echo {id} >> ${restartsLog} && while [ ! -e ${go} ]; do sleep 0.2; done && ${TSX} ${join(REPO, 'scripts', 'sandbox-cli.ts')} restart {id} --state-dir ${ensemble.stateDir} --timeout 45`;
    const { a, b, ids } = await startReplicaPair(
      {
        dir,
        ensembles: [ensembleConfigOf(ensemble, { name: 'home', restartCommand: { shell: true, line }, restartCommandTimeoutSeconds: 90 })],
        auth: { adminToken: ADMIN },
        secret: SECRET,
        sessionTimeoutMs: SESSION_MS,
        extras: QUICK_UPGRADES,
      },
      replicas,
    );

    // A browser on B follows the ensemble's upgrade from before it exists.
    const browser = await TestBrowser.open(b.url, { headers: { authorization: `Bearer ${ADMIN}` } });
    await browser.subscribed('upgrade', 'home', {});

    const started = await waitFor(
      async () => {
        const res = await call(a.url, 'POST', '/api/ensembles/home/upgrades', admin, { mode: 'rolling', start: true });
        if (res.status === 201) return upgradeAnswerSchema.parse(res.body);
        // A plan whose start was refused (the preflight wants one more poll) stays planned: abort it and try again.
        const list = (await call(a.url, 'GET', '/api/ensembles/home/upgrades', admin)).body as { upgrades?: { id: string; state: string }[] };
        for (const u of (list.upgrades ?? []).filter((x) => x.state === 'planned'))
          await call(a.url, 'POST', `/api/ensembles/home/upgrades/${u.id}/abort`, admin, { reason: 'preflight not passing yet' });
        return null;
      },
      { what: 'the upgrade started on A', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(started.runBy).toMatchObject({ replica: ids.a.id, name: ids.a.name });
    // At once on B, before its watch may have brought the workflow: read from the home ensemble, never "no upgrade", and
    // never a state older than A answered (A answers once the start is stored, not before).
    const atOnce = await call(b.url, 'GET', `/api/ensembles/home/upgrades/${started.id}`, admin);
    expect(atOnce.status, JSON.stringify(atOnce.body)).toBe(200);
    expect(upgradeAnswerSchema.parse(atOnce.body).state, 'B, at once after A answered the start').toBe('running');

    // B serves A's progress as A stores it: the first command's process, seen through B.
    const running = await waitFor(
      async () => {
        const wf = await read(b.url, started.id);
        return wf.steps[0]!.command?.process ? wf : null;
      },
      { what: 'the first restart command running, as B serves it', timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(running.runBy?.replica).toBe(ids.a.id);
    // An action taken on B, which does not run it, is stored there and carried out by A (a round-robin balancer sends admins anywhere).
    const onA = (state: string) => waitFor(async () => (await read(a.url, started.id)).state === state, { what: `A has it ${state}`, timeoutMs: 10_000 });
    const paused = await call(b.url, 'POST', `/api/ensembles/home/upgrades/${started.id}/pause`, admin, { reason: 'looking from B' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ state: 'paused', reason: expect.stringContaining('looking from B') });
    await onA('paused');
    expect((await call(b.url, 'POST', `/api/ensembles/home/upgrades/${started.id}/resume`, admin, {})).status).toBe(200);
    await onA('running');
    // GET /api/replicas, asked of B, names who runs it: A (serving, asked at its own URL), since its owner znode's ctime.
    const listedOnB = async () => replicasAnswerSchema.parse((await call(b.url, 'GET', '/api/replicas', admin)).body).replicas;
    const beforeKill = await listedOnB();
    expect(beforeKill.find((r) => r.id === ids.a.id)).toMatchObject({
      health: { state: 'serving' },
      upgrades: [{ ensemble: 'home', upgradeId: started.id, since: expect.any(Number) }],
    });
    expect(beforeKill.find((r) => r.id === ids.b.id)?.upgrades).toEqual([]);

    const killedAt = Date.now();
    await a.kill();
    // Until ZooKeeper ends A's session it still names A the upgrade's owner: B says what it knows, that A
    // does not answer and is unconfirmed since it last did (before the kill), never that A runs it.
    const deadA = await waitFor(
      async () => {
        const listed = (await listedOnB()).find((r) => r.id === ids.a.id);
        if (!listed) throw new Error('A left the list before B had said it was not answering');
        return listed.health.state === 'unreachable' ? listed : null;
      },
      { what: 'A listed as not answering by B, still registered', timeoutMs: SESSION_MS, intervalMs: 100 },
    );
    expect(deadA.upgrades).toEqual([{ ensemble: 'home', upgradeId: started.id, since: expect.any(Number), unconfirmedSince: expect.any(Number) }]);
    expect(deadA.upgrades[0]!.unconfirmedSince).toBeLessThanOrEqual(killedAt);
    expect(deadA.upgrades[0]!.unconfirmedSince).toBe(deadA.health.lastAnsweredAt);
    expect(deadA.health.lastAnsweredAt).toBeGreaterThan(killedAt - 5_000);
    // Not before A's state session has expired: B waits for ZooKeeper to end it.
    const handedOver = await waitFor(
      async () => {
        const wf = await read(b.url, started.id);
        return wf.handovers.length > 0 ? wf : null;
      },
      { what: 'B took the upgrade over', timeoutMs: 40_000, intervalMs: 100 },
    );
    const handover = handedOver.handovers[0]!;
    expect(handover).toMatchObject({ from: { replica: ids.a.id, name: ids.a.name }, to: { replica: ids.b.id, name: ids.b.name } });
    // ZooKeeper's time of B's owner znode: after the kill, once A's session could have expired.
    expect(handover.at).toBeGreaterThanOrEqual(killedAt + SESSION_MS - 1_500);
    expect(handover.at).toBeLessThan(killedAt + 4 * SESSION_MS);
    // Now B is named as its runner, and A (its session ended) is no longer listed.
    await waitFor(
      async () => {
        const listed = await listedOnB();
        return listed.find((r) => r.id === ids.b.id)?.upgrades[0]?.upgradeId === started.id && !listed.some((r) => r.id === ids.a.id);
      },
      { what: 'B named as the runner in GET /api/replicas, A gone', timeoutMs: 5_000 },
    );
    writeFileSync(go, '');

    const done = await waitFor(
      async () => {
        const wf = await read(b.url, started.id);
        if (wf.state === 'paused' || wf.state === 'failed') throw new Error(`upgrade stopped: ${wf.reason}`);
        return wf.state === 'done' ? wf : null;
      },
      { what: 'the upgrade done on B', timeoutMs: 200_000, intervalMs: 1_000 },
    );
    // Each member restarted exactly once, in the plan's order: the member A's command was restarting was not asked again.
    const restarts = readFileSync(restartsLog, 'utf8').trim().split('\n').map(Number);
    expect(restarts).toEqual(done.plan.order.map((m) => m.memberId));
    expect(done.steps.map((s) => s.state)).toEqual(['done', 'done', 'done']);
    expect(done.runBy?.replica).toBe(ids.b.id);
    const first = done.steps[0]!;
    const sentence = `replica ${ids.b.name} took over after replica ${ids.a.name}'s session ended`;
    expect(first.checks.find((c) => c.id === 'handover')).toMatchObject({ at: handover.at, saw: expect.stringContaining(sentence) });
    // B waited for the command A left running, and for A's lock to go with A's console session.
    expect(first.checks.some((c) => c.id === 'restart-process' && c.saw.startsWith(`replica ${ids.b.name} took over: the restart command`))).toBe(true);

    // The trail (B's answer from the shared window): the hand-over is an entry of B's, and the start's
    // entry (A's, the route's) was written before the first restart's and no later than the start.
    const trail = auditPageSchema
      .parse((await call(b.url, 'GET', '/api/audit?limit=200', admin)).body)
      .entries.filter((e) => e.details?.['upgradeId'] === started.id);
    const handoverEntry = trail.find((e) => e.action === 'upgrade.action' && e.details?.['action'] === 'handover');
    expect(handoverEntry).toMatchObject({ replica: { id: ids.b.id }, actor: { via: 'upgrade' }, outcome: 'ok' });
    expect(handoverEntry!.note).toBe(
      `replica ${ids.b.name} took over upgrade ${started.id} at ${new Date(handover.at).toISOString().slice(11, 19)} UTC after replica ${ids.a.name}'s session ended`,
    );
    const startEntry = trail.find((e) => e.action === 'upgrade.create')!;
    const firstRestart = trail.filter((e) => e.action === 'upgrade.step' && e.details?.['state'] === 'restarting').at(-1)!;
    expect(startEntry).toMatchObject({ replica: { id: ids.a.id }, outcome: 'ok', details: { start: true } });
    expect(startEntry.seq).toBeLessThan(firstRestart.seq);
    expect(startEntry.at).toBeLessThanOrEqual(done.startedAt!);

    // The browser on B was sent the hand-over while the upgrade still ran, then the end.
    const sent = browser.topicEvents('upgrade', 'home').map((e) => e.event.upgrade);
    expect(sent.some((wf) => wf?.state === 'running' && wf.handovers.length === 1 && wf.runBy?.replica === ids.b.id)).toBe(true);
    expect(sent.some((wf) => wf?.state === 'running' && wf.runBy?.replica === ids.a.id)).toBe(true);
    expect(sent.at(-1)?.state).toBe('done');
    browser.close();
    console.log(
      `killed at ${new Date(killedAt).toISOString()}, taken over at ${new Date(handover.at).toISOString()} (+${handover.at - killedAt} ms); ` +
        `done ${Math.round((done.finishedAt! - killedAt) / 1000)} s after the kill; ${JSON.stringify(first.checks.filter((c) => ['handover', 'restart-process', 'upgrade-lock'].includes(c.id)).map((c) => c.saw))}`,
    );
  }, 400_000);
});

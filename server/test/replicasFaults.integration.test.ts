/**
 * Issue 21, item 6, all at once (docs/operating/replicas.md): two Keeper replicas, each a process of its own,
 * behind a real nginx (docs/nginx/keeper.conf, round robin); a home ensemble holding their shared
 * state and a second real ensemble, "prod", that they upgrade while a kazoo writer records every
 * acknowledged write on it. The upgrade is started through nginx; the replica that runs it is
 * killed with SIGKILL by its own first restart command, as that command begins (before the replica
 * has stored the command's process: the tightest moment), and the home ensemble's leader is
 * stopped at once (it stays down to the end). The other replica takes the upgrade over
 * once ZooKeeper has ended the dead one's session (across the home's election) and finishes it:
 * each member restarted exactly once, no acknowledged write lost. GET /api/audit through nginx,
 * answered by the survivor, lists the dead replica's entries (the upgrade's start, its first
 * restart) beside the survivor's, each marked with its replica, and a change answered during the
 * home's election. The window is checked whole, not at its end: the upgrade as nginx serves it is
 * asked every 150 ms from before the kill to the end and never says a member done before it was
 * restarted, never goes backwards, and never names the dead replica again once handed over.
 *
 * Why two ensembles rather than one (the hand-over test upgrades its own home ensemble): the home's
 * leader is stopped while the upgrade has a member of the upgraded ensemble down; in one 3-member
 * ensemble that is two members down, no quorum, and the upgrade's own gates would pause it. In
 * production the home ensemble is a small ensemble of its own, or a production one that is
 * upgraded on another day; here it loses its leader while the ensemble being upgraded loses its
 * members one by one.
 *
 * Runs in the phase with nothing else beside it (vitest.config.ts, ALONE): side by side with the e2e
 * specs at a load of 17, the upgrade's first restart once did not begin within its minute; what it
 * waits on (the upgrade's gates, the home's election, the dead replica's session timeout) is time.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPageSchema, upgradeAnswerSchema, upgradeListAnswerSchema, type AuditEntry, type UpgradeAnswer } from '@keeper/shared';
import { KEEPER_PORTS } from '../../scripts/sandbox/portOffsets.js';
import { missingWrites, startLoadWriter, type LoadReport, type RunningLoadWriter } from '../../scripts/lib/kazoo/index.js';
import { startNginx, type RunningNginx } from '../../scripts/lib/nginx.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { QUICK_UPGRADES, startReplicaPair, type KeeperProcess } from './support/keeperProcess.js';
import { waitFor } from './support/waitFor.js';

const ADMIN = 'replicas-faults-admin-token-0123456789';
const SECRET = 'replicas-faults-cluster-secret-0123456789-abcdef';
const BEARER = { authorization: `Bearer ${ADMIN}` };
const REPO = resolve(import.meta.dirname, '../..');
const TSX = join(REPO, 'node_modules', '.bin', 'tsx');
/** Every session of both replicas (console and state): the killed one's end this long after the home has a leader. */
const SESSION_MS = 5_000;

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;
let home: Ensemble;
let prod: Ensemble;
let dir: string;
let nginx: RunningNginx;
const replicas: KeeperProcess[] = [];
let writer: RunningLoadWriter | null = null;

beforeAll(async () => {
  [home, prod] = await Promise.all([startTestEnsemble(PORT_OFFSETS.replicasFaultsHome), startTestEnsemble(PORT_OFFSETS.replicasFaultsTarget)]);
  dir = mkdtempSync(join(tmpdir(), 'keeper-replicas-faults-'));
}, 180_000);

afterAll(async () => {
  await writer?.stop().catch(() => undefined);
  // What nginx thought of each replica: a 502 in the window is explained here.
  if (nginx) console.log(`nginx's error log, its end:\n${nginx.errorLogTail()}`);
  nginx?.stop();
  await Promise.all(replicas.map((r) => r.stop()));
  await Promise.all([home?.dispose(), prod?.dispose()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What nginx served for the upgrade at one moment, and what was true then. */
interface Seen {
  at: number;
  status: number;
  wf: UpgradeAnswer | null;
  /** Restart commands begun by then (each appends its member's id before restarting it). */
  commandsBegun: number;
  goWritten: boolean;
}

const doneSteps = (wf: UpgradeAnswer) => wf.steps.filter((s) => s.state === 'done').length;

describe('two replicas behind nginx, the one running an upgrade killed while the home ensemble loses its leader', () => {
  it('hands the upgrade over and finishes it with no member restarted twice, no acknowledged write lost, one audit trail, and no early "done"', async () => {
    const restartsLog = join(dir, 'restarts.log');
    const go = join(dir, 'go');
    // The first command kills the replica running it (its parent) as it begins, then holds its member's restart until the
    // upgrade is handed over; the later ones find `go` at once. (Output to a file: the dead replica's pipe is gone. A failed run's
    // removed dir ends the wait: the orphan must not outlive the test.)
    const killed = join(dir, 'killed');
    const line =
      `echo {id} >> ${restartsLog} && if [ ! -e ${killed} ]; then touch ${killed}; kill -9 $PPID; fi && while [ -d ${dir} ] && [ ! -e ${go} ]; do sleep 0.2; done && [ -e ${go} ] && ` +
      `${TSX} ${join(REPO, 'scripts', 'sandbox-cli.ts')} restart {id} --state-dir ${prod.stateDir} --timeout 45 >> ${join(dir, 'restarts.out')} 2>&1`;
    const {
      a,
      b,
      ids: listed,
    } = await startReplicaPair(
      {
        dir,
        ensembles: [
          ensembleConfigOf(home, { name: 'home' }),
          ensembleConfigOf(prod, { name: 'prod', restartCommand: { shell: true, line }, restartCommandTimeoutSeconds: 90 }),
        ],
        auth: { adminToken: ADMIN },
        secret: SECRET,
        sessionTimeoutMs: SESSION_MS,
        extras: QUICK_UPGRADES,
        options: { trustProxy: ['loopback'] },
      },
      replicas,
    );
    const diedAt = new Map<KeeperProcess, number>();
    for (const r of [a, b]) r.child.once('exit', () => diedAt.set(r, Date.now()));
    nginx = await startNginx(
      dir,
      KEEPER_PORTS.replicasFaultsNginx,
      [a, b].map((r) => new URL(r.url).host),
    );
    const { viaProxy } = nginx;
    const ids = new Map([
      [listed.a.id, { id: listed.a.id, name: listed.a.name, process: a }],
      [listed.b.id, { id: listed.b.id, name: listed.b.name, process: b }],
    ]);

    writer = await startLoadWriter({ hosts: prod.connectionString, root: '/load/replicas-faults', sessionTimeoutMs: 15_000 });
    await waitFor(() => writer!.acks.length >= 20, { what: 'the kazoo writer acknowledged', timeoutMs: 30_000 });

    // Started through nginx: whichever replica answers runs it. Its first restart begins within a second and kills it, which
    // can be before its answer is out: nginx then says 502 (the request reached it), and the upgrade, stored, runs on.
    const refusals: string[] = [];
    let answered = false;
    const started = await waitFor(
      async () => {
        const sentAt = Date.now();
        const res = await viaProxy('POST', '/api/ensembles/prod/upgrades', BEARER, { mode: 'rolling', start: true });
        if (res.status === 201) {
          answered = true;
          return upgradeAnswerSchema.parse(res.body);
        }
        refusals.push(`${Date.now() - sentAt} ms: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        const list = upgradeListAnswerSchema.parse((await viaProxy('GET', '/api/ensembles/prod/upgrades', BEARER)).body).upgrades;
        const running = list.find((u) => u.state === 'running');
        if (running) return upgradeAnswerSchema.parse((await viaProxy('GET', `/api/ensembles/prod/upgrades/${running.id}`, BEARER)).body);
        // A plan whose start was refused (the preflight wants one more poll under the writes) stays planned: abort it and try again.
        for (const u of list.filter((x) => x.state === 'planned'))
          await viaProxy('POST', `/api/ensembles/prod/upgrades/${u.id}/abort`, BEARER, { reason: 'preflight not passing yet' });
        return null;
      },
      { what: 'the upgrade started through nginx', timeoutMs: 60_000, intervalMs: 1_000 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; refused: ${refusals.join(' | ')}`);
    });
    const runner = ids.get(started.runBy!.replica)!;
    const survivor = [...ids.values()].find((r) => r !== runner)!;
    const readViaNginx = async () => {
      const res = await viaProxy('GET', `/api/ensembles/prod/upgrades/${started.id}`, BEARER);
      return { status: res.status, wf: res.status === 200 ? upgradeAnswerSchema.parse(res.body) : null };
    };

    // The window: what nginx serves, every 150 ms, from before the kill until the upgrade ends.
    const seen: Seen[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const answer = await readViaNginx().catch((error: unknown) => ({ status: -1, wf: null, error }));
        seen.push({
          at: Date.now(),
          ...answer,
          commandsBegun: existsSync(restartsLog) ? readFileSync(restartsLog, 'utf8').trim().split('\n').length : 0,
          goWritten: existsSync(go),
        });
        await new Promise((r) => setTimeout(r, 150));
      }
    })();

    let report: LoadReport;
    let done: UpgradeAnswer;
    let homeLeader: number;
    let killedAt: number;
    let probe: { status: number; tookMs: number; at: number };
    let electedAfterMs: number;
    try {
      homeLeader = (await home.leaderId())!;
      expect(homeLeader).not.toBeNull();
      killedAt = await waitFor(() => diedAt.get(runner.process), { what: 'the runner killed by its first restart command', timeoutMs: 60_000, intervalMs: 20 });
      expect(runner.process.child.signalCode).toBe('SIGKILL');
      expect(diedAt.has(survivor.process)).toBe(false);
      await home.stopMember(homeLeader);

      // A change answered while the home ensemble elects: its audit entry must still reach the shared window.
      const probeAt = Date.now();
      const created = await viaProxy('POST', '/api/ensembles/prod/znodes/written-during-home-election', BEARER, { data: 'x' });
      probe = { status: created.status, tookMs: Date.now() - probeAt, at: probeAt };
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await waitFor(async () => ((await home.leaderId()) ?? homeLeader) !== homeLeader, { what: 'a new home leader', timeoutMs: 30_000, intervalMs: 100 });
      electedAfterMs = Date.now() - killedAt;

      const handedOver = await waitFor(
        async () => {
          const { wf } = await readViaNginx();
          return wf && wf.handovers.length > 0 ? wf : null;
        },
        { what: 'the survivor took the upgrade over', timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(handedOver.handovers[0]).toMatchObject({ from: { replica: runner.id, name: runner.name }, to: { replica: survivor.id, name: survivor.name } });
      // Not before ZooKeeper ended the dead replica's session.
      expect(handedOver.handovers[0]!.at).toBeGreaterThanOrEqual(killedAt + SESSION_MS - 1_500);
      writeFileSync(go, '');

      done = await waitFor(
        async () => {
          const { wf } = await readViaNginx();
          if (wf?.state === 'paused' || wf?.state === 'failed') throw new Error(`upgrade stopped: ${wf.reason}`);
          return wf?.state === 'done' ? wf : null;
        },
        { what: 'the upgrade done, as nginx serves it', timeoutMs: 200_000, intervalMs: 500 },
      );
      // A little load after the end, so a write lost at the very end would show.
      await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      watching = false;
      await watcher;
      report = await writer.stop();
      writer = null;
    }

    // Each member of prod restarted exactly once, in the plan's order, the first by the command the dead replica left running.
    const restarts = readFileSync(restartsLog, 'utf8').trim().split('\n').map(Number);
    expect(restarts).toEqual(done.plan.order.map((m) => m.memberId));
    expect(done.steps.map((s) => s.state)).toEqual(['done', 'done', 'done']);
    expect(done.runBy?.replica).toBe(survivor.id);
    expect(done.handovers).toHaveLength(1);
    // Killed as its command began: the survivor waited for the command it left (its process stored or not yet), never ran it again.
    const first = done.steps[0]!;
    expect(first.checks.find((c) => c.id === 'restart-process')?.saw).toMatch(
      new RegExp(`^replica ${survivor.name} took over: the restart command the previous Keeper process started (is still running|may still be running)`),
    );

    // No acknowledged write lost; the writer kept writing through the upgrade.
    const missing = await missingWrites(prod.connectionString, [report]);
    expect(missing.get(report.root), 'acknowledged but missing').toEqual([]);
    const acksDuring = report.acks.filter((x) => x.at > started.startedAt! && x.at < done.finishedAt!).length;
    expect(acksDuring).toBeGreaterThan(50);

    // The window, as nginx served it: always an answer, never a member done before its restart began, never backwards, never early.
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.filter((s) => s.status !== 200).map((s) => s.status)).toEqual([]);
    let most = 0;
    let handedOverSeen = false;
    for (const s of seen) {
      const wf = s.wf!;
      const n = doneSteps(wf);
      expect(n, `${new Date(s.at).toISOString()}: ${n} steps done with ${s.commandsBegun} restart commands begun`).toBeLessThanOrEqual(s.commandsBegun);
      // The first member's command holds its restart until `go`: nothing may show it down, back or done before.
      if (!s.goWritten) expect(['pending', 'gatesChecked', 'restarting'], 'the first member, held by its command').toContain(wf.steps[0]!.state);
      expect(n).toBeGreaterThanOrEqual(most);
      most = n;
      expect(['running', 'done']).toContain(wf.state);
      if (wf.state === 'done') expect(n).toBe(3);
      if (handedOverSeen) expect(wf.runBy?.replica).toBe(survivor.id);
      handedOverSeen ||= wf.handovers.length > 0;
      expect(wf.runBy?.replica).toBe(wf.handovers.length > 0 ? survivor.id : runner.id);
    }

    // One audit trail, through nginx (only the survivor answers now): the dead replica's entries beside the survivor's.
    // The end's entry reaches the shared window as the survivor ends (its file first, then the home
    // ensemble): the trail is read until it is there.
    const forUpgrade = (e: AuditEntry) => (e.details as { upgradeId?: string } | undefined)?.upgradeId === started.id;
    const entries = await waitFor(
      async () => {
        const page = await viaProxy('GET', '/api/audit?limit=500', BEARER);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        const all = auditPageSchema.parse(page.body).entries;
        return all.some((e) => e.action === 'upgrade.action' && forUpgrade(e) && (e.details as { state?: string }).state === 'done') ? all : null;
      },
      { what: "the upgrade's end in the shared audit trail", timeoutMs: 15_000, intervalMs: 250 },
    );
    const of = (e: AuditEntry | undefined) => e?.replica && { id: e.replica.id, name: e.replica.name };
    // Its start, when the runner answered it (a replica killed before its answer may take the entry with it: nginx said 502).
    const createdEntry = entries.find((e) => e.action === 'upgrade.create' && forUpgrade(e) && e.outcome === 'ok');
    if (answered) expect(of(createdEntry)).toEqual({ id: runner.id, name: runner.name });
    const steps = entries.filter((e) => e.action === 'upgrade.step' && forUpgrade(e));
    const stepBy = (memberId: number, state: string) =>
      steps.find((e) => (e.details as { memberId?: number; state?: string }).memberId === memberId && (e.details as { state?: string }).state === state);
    const [m1, m2, m3] = done.plan.order.map((m) => m.memberId) as [number, number, number];
    expect(of(stepBy(m1, 'restarting'))).toEqual({ id: runner.id, name: runner.name });
    for (const [member, state] of [
      [m1, 'done'],
      [m2, 'restarting'],
      [m2, 'done'],
      [m3, 'restarting'],
      [m3, 'done'],
    ] as const)
      expect(of(stepBy(member, state)), `${member} ${state}`).toEqual({ id: survivor.id, name: survivor.name });
    expect(of(entries.find((e) => e.action === 'upgrade.action' && forUpgrade(e) && (e.details as { state?: string }).state === 'done'))).toEqual({
      id: survivor.id,
      name: survivor.name,
    });
    expect(of(entries.find((e) => e.action === 'create' && e.path === '/written-during-home-election'))).toEqual({ id: survivor.id, name: survivor.name });
    // Newest first: the end after the first restart.
    expect(entries.indexOf(stepBy(m1, 'restarting')!)).toBeGreaterThan(entries.findIndex((e) => e.action === 'upgrade.action' && forUpgrade(e)));

    const handover = done.handovers[0]!;
    console.log(
      `runner ${runner.name} killed at ${new Date(killedAt).toISOString()}; home leader ${homeLeader} stopped, a new one within ${electedAfterMs} ms; ` +
        `a change answered ${probe.tookMs} ms after its request during the election; taken over +${handover.at - killedAt} ms; ` +
        `done ${Math.round((done.finishedAt! - killedAt) / 1000)} s after the kill; ${seen.length} answers through nginx in the window; ` +
        `start ${answered ? 'answered 201' : `not answered (${refusals.join(' | ')})`}, its entry ${createdEntry ? 'in' : 'not in'} the window; ` +
        `writer: ${report.acks.length} acknowledged (${acksDuring} during the upgrade), ${report.fails.length} not, members ${report.peers.map((p) => p.peer).join(' -> ')}`,
    );
  }, 400_000);
});

/**
 * Upgrade state belongs to an ensemble, not to its name (issue 22, item 4), on two real one-member
 * ensembles both called "it" by Keepers sharing one state directory, as two `npm start`s of one
 * user do:
 * - each ensemble gets its own id in `/keeper/ensemble-id`, and its upgrades live under it;
 * - a Keeper on the other ensemble neither lists nor resumes the first one's paused upgrade, and
 *   may plan its own;
 * - files an older Keeper kept under `<state>/upgrades/<name>/` move to the identity whose members
 *   their plan names, and the others stay;
 * - a workflow whose plan names other members than the ensemble has is not resumed, with the
 *   reason, and a resume is refused with it.
 * No member is ever restarted: the restarter refuses, which pauses an upgrade at its first step.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upgradeAnswerSchema, upgradeListAnswerSchema, upgradeWorkflowSchema, type UpgradeWorkflow } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import { ENSEMBLE_ID_PATH } from '../src/ensemble/ensembleIdentity.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';
import { call, type Who } from './support/http.js';

const ADMIN = 'admin-token-for-upgrade-identity-0123456789';
const admin: Who = { token: ADMIN };

type Ensemble = Awaited<ReturnType<typeof startTestEnsemble>>;

let x: Ensemble;
let y: Ensemble;
let stateDir: string;
const keepers: RunningKeeper[] = [];
/** Every restart asked of the test's restarter (each refused). */
const restartCalls: string[] = [];

/** Keeper on `ensemble`, named "it", on the shared state directory. */
async function keeperOn(ensemble: Ensemble, label: string): Promise<RunningKeeper> {
  const keeper = await startKeeper(
    { host: '127.0.0.1', port: 0, ensembles: [ensembleConfigOf(ensemble)], auth: { stateDir, adminToken: ADMIN } },
    {
      logger: testLogger,
      ensembleDefaults: { pollIntervalMs: 1_000, sessionsMinIntervalMs: 3_000 },
      rateLimits: { api: 100_000, loginFailures: 1_000 },
      upgradeTimings: { settleMs: 1_000 },
      // Lets a resumed upgrade take the lock its closed predecessor held at once.
      gatewayDefaults: { sessionTimeoutMs: 4_000 },
      restartMember: (_name, id) => {
        restartCalls.push(`${label}:${id}`);
        return Promise.reject(new Error('the identity test never restarts a member'));
      },
    },
  );
  keepers.push(keeper);
  return keeper;
}

const idOf = (keeper: RunningKeeper) => keeper.ensembles.get('it').identity.current();
const identityDir = (id: string) => join(stateDir, 'ensembles', id, 'upgrades');
const legacyDir = () => join(stateDir, 'upgrades', 'it');

/** The upgrades once the Keeper read them (it answers NOT_READY until the ensemble's identity is known). */
async function listOf(keeper: RunningKeeper): Promise<{ id: string; state: string }[]> {
  const res = await waitFor(
    async () => {
      const r = await call(keeper.url, 'GET', '/api/ensembles/it/upgrades', admin);
      if (r.status === 503) return null;
      return r;
    },
    { what: 'the upgrades read', timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return upgradeListAnswerSchema.parse(res.body).upgrades.map((u) => ({ id: u.id, state: u.state }));
}

async function closeAll(): Promise<void> {
  for (const k of keepers.splice(0)) await k.close();
}

beforeAll(async () => {
  // Two one-member ensembles: the second on member 2's ports of this file's layout.
  [x, y] = await Promise.all([
    startTestEnsemble(PORT_OFFSETS.upgradeIdentityTest, { size: 1 }),
    startTestEnsemble(PORT_OFFSETS.upgradeIdentityTest + 1, { size: 1 }),
  ]);
  stateDir = mkdtempSync(join(tmpdir(), 'keeper-upgrade-identity-'));
}, 180_000);

afterAll(async () => {
  await closeAll();
  await Promise.all([x?.dispose(), y?.dispose()]);
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('two ensembles called "it", one state directory', () => {
  let paused: UpgradeWorkflow;
  let xId: string;
  let yId: string;

  it("keeps the first ensemble's paused upgrade under that ensemble's own id", async () => {
    const a = await keeperOn(x, 'x');
    expect(await listOf(a)).toEqual([]);
    xId = idOf(a)!;
    expect(xId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await a.ensembles.get('it').gateway.getData(ENSEMBLE_ID_PATH)).data.toString()).toBe(xId);
    // One voter tolerates no failure: the plan asks for its phrase, and the refused restart pauses it.
    const created = await waitFor(
      async () => {
        const res = await call(a.url, 'POST', '/api/ensembles/it/upgrades', admin, { mode: 'rolling', start: true, confirmation: 'restart it with an outage' });
        if (res.status === 201) return res;
        for (const u of (await listOf(a)).filter((u) => u.state === 'planned'))
          await call(a.url, 'POST', `/api/ensembles/it/upgrades/${u.id}/abort`, admin, {});
        return null;
      },
      { what: 'the upgrade started', timeoutMs: 30_000, intervalMs: 1_000 },
    );
    const id = created.body.id as string;
    paused = await waitFor(
      async () => {
        const wf = upgradeAnswerSchema.parse((await call(a.url, 'GET', `/api/ensembles/it/upgrades/${id}`, admin)).body);
        return wf.state === 'paused' ? wf : null;
      },
      { what: 'the upgrade paused on its refused restart', timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(readdirSync(identityDir(xId))).toEqual([`${id}.json`]);
    expect(existsSync(legacyDir())).toBe(false);
    await closeAll();
  }, 90_000);

  it('a Keeper on the other ensemble neither lists nor resumes it, and plans its own', async () => {
    const b = await keeperOn(y, 'y');
    expect(await listOf(b)).toEqual([]);
    yId = idOf(b)!;
    expect(yId).not.toBe(xId);
    expect((await call(b.url, 'GET', `/api/ensembles/it/upgrades/${paused.id}`, admin)).status).toBe(404);
    const own = await call(b.url, 'POST', '/api/ensembles/it/upgrades', admin, { mode: 'rolling' });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect((await call(b.url, 'POST', `/api/ensembles/it/upgrades/${own.body.id}/abort`, admin, {})).status).toBe(200);
    // X's file is untouched, Y's is under Y's id.
    expect(upgradeWorkflowSchema.parse(JSON.parse(readFileSync(join(identityDir(xId), `${paused.id}.json`), 'utf8'))).state).toBe('paused');
    expect(readdirSync(identityDir(yId))).toEqual([`${own.body.id}.json`]);
    await closeAll();
  }, 60_000);

  it('moves files kept by name only to the ensemble whose members their plan names; each Keeper resumes its own', async () => {
    // Two finished upgrades an older Keeper kept under <state>/upgrades/it/: one of X, one of Y.
    mkdirSync(legacyDir(), { recursive: true });
    const legacy = (id: string, wf: UpgradeWorkflow): UpgradeWorkflow => ({
      ...wf,
      id,
      state: 'aborted',
      finishedAt: wf.createdAt - 1,
      createdAt: wf.createdAt - 60_000,
    });
    const ofX = legacy('11111111-1111-4111-8111-111111111111', paused);
    const yAddress = `${y.members[0]!.host}:${y.members[0]!.clientPort}`;
    const ofY = legacy('22222222-2222-4222-8222-222222222222', {
      ...paused,
      steps: paused.steps.map((s) => ({ ...s, address: yAddress, clientPort: y.members[0]!.clientPort })),
    });
    writeFileSync(join(legacyDir(), `${ofX.id}.json`), JSON.stringify(ofX));
    writeFileSync(join(legacyDir(), `${ofY.id}.json`), JSON.stringify(ofY));

    const a = await keeperOn(x, 'x');
    expect(await listOf(a)).toEqual([
      { id: paused.id, state: 'paused' },
      { id: ofX.id, state: 'aborted' },
    ]);
    expect(readdirSync(legacyDir())).toEqual([`${ofY.id}.json`]);
    // The paused upgrade resumed as paused (its step waits on someone): nothing was restarted again.
    const resumed = upgradeAnswerSchema.parse((await call(a.url, 'GET', `/api/ensembles/it/upgrades/${paused.id}`, admin)).body);
    expect(resumed.state).toBe('paused');
    await closeAll();

    const b = await keeperOn(y, 'y');
    expect((await listOf(b)).map((u) => u.id)).toContain(ofY.id);
    expect((await listOf(b)).map((u) => u.id)).not.toContain(paused.id);
    expect(existsSync(legacyDir())).toBe(false);
    await closeAll();
  }, 90_000);

  it('does not resume a workflow whose plan names other members, and says why', async () => {
    const a = await keeperOn(x, 'x');
    await listOf(a);
    expect((await call(a.url, 'POST', `/api/ensembles/it/upgrades/${paused.id}/abort`, admin, { reason: 'next test' })).status).toBe(200);
    await closeAll();
    // A paused workflow under X's id whose plan names a member X does not have (its config was edited, say).
    const stranger: UpgradeWorkflow = {
      ...paused,
      id: '33333333-3333-4333-8333-333333333333',
      state: 'running',
      reason: null,
      finishedAt: null,
      createdAt: Date.now(),
      steps: paused.steps.map((s) => ({
        ...s,
        state: 'gatesChecked',
        reason: null,
        pausedFrom: null,
        restartRequestedAt: null,
        address: '127.0.0.1:1',
        clientPort: 1,
      })),
    };
    writeFileSync(join(identityDir(xId), `${stranger.id}.json`), JSON.stringify(stranger));
    const calls = restartCalls.length;
    const again = await keeperOn(x, 'x');
    await listOf(again);
    const refused = await waitFor(
      async () => {
        const wf = upgradeAnswerSchema.parse((await call(again.url, 'GET', `/api/ensembles/it/upgrades/${stranger.id}`, admin)).body);
        return wf.state === 'paused' ? wf : null;
      },
      { what: 'the stranger refused', timeoutMs: 20_000, intervalMs: 250 },
    );
    const address = `${x.members[0]!.host}:${x.members[0]!.clientPort}`;
    expect(refused.reason).toBe(
      `Keeper will not resume this upgrade: it was planned for 127.0.0.1:1, but 127.0.0.1:1 is not in the ensemble now, and ${address} was not in the plan. Abort it and plan a new one for the members as they are.`,
    );
    const resume = await call(again.url, 'POST', `/api/ensembles/it/upgrades/${stranger.id}/resume`, admin, {});
    expect(resume.status).toBe(409);
    expect(resume.body.error).toMatchObject({ code: 'UPGRADE_REFUSED', message: refused.reason });
    // A few polls later: still untouched, nothing restarted.
    await new Promise((r) => setTimeout(r, 2_500));
    const still = upgradeAnswerSchema.parse((await call(again.url, 'GET', `/api/ensembles/it/upgrades/${stranger.id}`, admin)).body);
    expect(still.steps.map((s) => s.state)).toEqual(['gatesChecked']);
    expect(restartCalls.length).toBe(calls);
    expect((await call(again.url, 'POST', `/api/ensembles/it/upgrades/${stranger.id}/abort`, admin, {})).status).toBe(200);
  }, 90_000);
});

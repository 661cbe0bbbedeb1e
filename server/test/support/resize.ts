/**
 * What the resize tests share (issue 24; reconfig.integration.test.ts, reconfigFaults.integration.test.ts):
 * the sandbox's client addresses, /zookeeper/config read back, each member's own mode (srvr), the
 * independent check that every member of a configuration serves in its role with the leader's
 * followers in sync, another client's reconfig (kazoo), and Keeper's resize API with the checks
 * each step recorded.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { parseDynamicConfig, parseMntr, quorumSize, reconfigWorkflowSchema, type DynamicConfig, type ReconfigWorkflow } from '@keeper/shared';
import { fourLetterWord, parseSrvrMode } from '../../../scripts/sandbox/index.js';
import { PYTHON } from '../../../scripts/lib/kazoo/process.js';
import { CONFIG_PATH } from '../../src/reconfig/executor.js';
import type { ZkGateway } from '../../src/zk/gateway.js';
import { call, type Who } from './http.js';
import { waitFor } from './waitFor.js';

/** The client addresses of sandbox members `ids` at a port offset (client port 2190 + offset + id). */
export const clientHosts = (portOffset: number, ids: readonly number[]): string => ids.map((id) => `127.0.0.1:${2190 + portOffset + id}`).join(',');

export async function readDynamicConfig(gateway: ZkGateway): Promise<DynamicConfig> {
  const { data } = await gateway.getData(CONFIG_PATH);
  return parseDynamicConfig(data.toString('utf8'));
}

/** The member's own word on its mode (srvr), or null when it does not answer or does not serve. */
export async function memberMode(clientPort: number): Promise<string | null> {
  return fourLetterWord('127.0.0.1', clientPort, 'srvr', 1_500).then(parseSrvrMode, () => null);
}

/** The id of the member that says it leads, among those of the configuration. */
export async function leaderOf(gateway: ZkGateway): Promise<number> {
  const config = await readDynamicConfig(gateway);
  for (const m of config.members) if ((await memberMode(m.clientPort!)) === 'leader') return m.id;
  throw new Error('no leader');
}

/** After a step: every member of the configuration serves in its role, and the leader counts every voting follower in sync. */
export async function verifyMembership(config: DynamicConfig): Promise<string> {
  let seen = '';
  const met = waitFor(
    async () => {
      const modes = await Promise.all(config.members.map(async (m) => [m, await memberMode(m.clientPort!)] as const));
      seen = modes.map(([m, mode]) => `${m.id}:${mode}`).join(' ');
      for (const [m, mode] of modes) {
        if (m.role === 'observer' ? mode !== 'observer' : mode !== 'leader' && mode !== 'follower') return null;
      }
      const leader = modes.find(([, mode]) => mode === 'leader')![0];
      const mntr = parseMntr(await fourLetterWord('127.0.0.1', leader.clientPort!, 'mntr', 1_500));
      const voters = config.members.filter((m) => m.role === 'participant').length;
      const synced = Number(mntr.get('synced_followers'));
      seen += `; synced ${synced} of ${voters - 1}`;
      // At least: a joiner still waiting to be added is a synced learner too, and the leader counts it (seen: 4 of 3).
      if (synced < voters - 1) return null;
      return `member ${leader.id} leads; ${synced} of ${voters - 1} followers synced; quorum ${quorumSize(voters)} of ${voters}`;
    },
    { timeoutMs: 20_000, intervalMs: 200, what: `every member of version ${config.version} in its role, followers synced` },
  );
  return met.catch((error: Error) => {
    throw new Error(`${error.message}; last seen ${seen}`);
  });
}

/** Another client's reconfig (kazoo, as the super user): `joining` re-added, so a new version with the same membership. Its new configuration's text. */
export async function kazooReconfig(hosts: string, superPassword: string, joining: string): Promise<string> {
  const script = [
    'import sys',
    'from kazoo.client import KazooClient',
    'zk = KazooClient(hosts=sys.argv[1], timeout=10.0)',
    'zk.start(timeout=15)',
    "zk.add_auth('digest', sys.argv[2])",
    'data, stat = zk.reconfig(joining=sys.argv[3], leaving=None, new_members=None)',
    'print(data.decode())',
    'zk.stop()',
  ].join('\n');
  const { stdout } = await promisify(execFile)(PYTHON, ['-c', script, hosts, `super:${superPassword}`, joining], { timeout: 30_000 });
  return stdout;
}

/** Keeper's resize API for one ensemble, on whichever Keeper `url()` names now (a test may replace it). */
export function resizeApi(url: () => string, reader: Who, ensemble = 'it') {
  const api = (method: string, path: string, who: Who, body?: unknown, raw = false) =>
    call(url(), method, `/api/ensembles/${ensemble}/reconfig${path}`, who, body, { raw });
  const getWorkflow = async (id: string): Promise<ReconfigWorkflow> => {
    const res = await api('GET', `/${id}`, reader);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return reconfigWorkflowSchema.parse(res.body);
  };
  const waitState = (id: string, states: string[], timeoutMs = 90_000) =>
    waitFor(
      async () => {
        const wf = await getWorkflow(id);
        return states.includes(wf.state) ? wf : null;
      },
      { what: `resize ${id} ${states.join(' or ')}`, timeoutMs, intervalMs: 250 },
    );
  return { api, getWorkflow, waitState };
}

/** Every check after a step passed (/zookeeper/config, roles, synced followers, the quorum sentence), each step conditioned on the version before. */
export function expectVerified(wf: ReconfigWorkflow): void {
  let from = wf.fromConfig;
  for (const step of wf.steps) {
    expect(step.state, `${step.sentence}: ${step.reason}`).toBe('done');
    expect(step.fromConfig, `step ${step.index} conditioned on the version verified before it`).toBe(from);
    expect(step.checks.map((c) => c.id)).toEqual(['config', 'roles', 'member-configs', 'synced-followers', 'quorum']);
    for (const c of step.checks) expect(c.ok, `${c.id}: ${c.saw}`).toBe(true);
    console.log(`step ${step.index} ${step.zkCli} -v ${step.fromConfig} -> ${step.version}: ${step.checks.map((c) => c.saw).join(' | ')}`);
    from = step.version!;
  }
  expect(wf.verifiedVersion).toBe(from);
}

export function expectError(res: { status: number; body: any }, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body?.error?.code).toBe(code);
}

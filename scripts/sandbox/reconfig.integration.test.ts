/**
 * The sandbox can grow (issue 24): a reconfig-enabled sandbox, `npm run sandbox -- add 4` from
 * the CLI (through the launcher's control socket) starting member 4 as a learner with the
 * current configuration plus itself, kazoo adding it with the printed line as the super user
 * whose password the sandbox wrote, then removing it, and the sandbox stopping it.
 * Ports: PORT_OFFSETS.sandboxReconfigTest.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PYTHON } from '../lib/kazoo/process.js';
import { fourLetterWord, parseSrvrMode, SandboxEnsemble, SUPER_PASSWORD_FILE } from './index.js';
import { PORT_OFFSETS } from './portOffsets.js';

const OFFSET = PORT_OFFSETS.sandboxReconfigTest;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

let stateDir: string;
let ensemble: SandboxEnsemble;

beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kr-'));
  ensemble = await SandboxEnsemble.start({ stateDir, portOffset: OFFSET, tickTime: 500, reconfig: { superPassword: 'grow-test' } });
}, 90_000);

afterAll(async () => {
  await ensemble?.close();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/sandbox-cli.ts', ...args, '--state-dir', stateDir], { cwd: REPO, timeout: 90_000 });

/** kazoo's reconfig as the super user; prints the new configuration. */
async function kazooReconfig(joining: string | null, leaving: string | null): Promise<string> {
  const script = [
    'import sys',
    'from kazoo.client import KazooClient',
    'zk = KazooClient(hosts=sys.argv[1], timeout=10.0)',
    'zk.start(timeout=15)',
    "zk.add_auth('digest', 'super:' + open(sys.argv[2]).read().strip())",
    'j, l = sys.argv[3] or None, sys.argv[4] or None',
    'data, stat = zk.reconfig(joining=j, leaving=l, new_members=None)',
    'print(data.decode())',
    'zk.stop()',
  ].join('\n');
  const { stdout } = await run(PYTHON, ['-c', script, ensemble.connectionString, path.join(stateDir, SUPER_PASSWORD_FILE), joining ?? '', leaving ?? ''], {
    timeout: 30_000,
  });
  return stdout;
}

it('add <id> starts a learner that a reconfig adds; a member the reconfig removes is stopped by the sandbox', async () => {
  expect(fs.statSync(path.join(stateDir, SUPER_PASSWORD_FILE)).mode & 0o777).toBe(0o600);
  const { stdout } = await cli('add', '4');
  const line = /reconfig -add (server\.4=\S+)/.exec(stdout)?.[1];
  expect(line, stdout).toBe(`server.4=127.0.0.1:${2884 + OFFSET}:${3884 + OFFSET}:participant;127.0.0.1:${2194 + OFFSET}`);
  const four = ensemble.member(4);
  expect(four.state).toBe('running');
  // Waiting as a learner: it answers srvr, and is not in the configuration yet.
  expect(parseSrvrMode(await fourLetterWord('127.0.0.1', four.clientPort, 'srvr'))).toBe('follower');

  // A second add of a running member is refused with the reason.
  await expect(cli('add', '4')).rejects.toThrow(/member 4 is already running/);

  const added = await kazooReconfig(line!, null);
  expect(added).toContain(line!);
  // Removed means "seen in the configuration, then left out": wait for the sandbox's check to see it
  // in (an add and a remove inside one 2 s check would leave a member it never saw as a member).
  const seenBy = Date.now() + 15_000;
  while (!ensemble.seenInConfiguration(4) && Date.now() < seenBy) await new Promise((r) => setTimeout(r, 100));
  expect(ensemble.seenInConfiguration(4)).toBe(true);
  const removed = await kazooReconfig(null, '4');
  expect(removed).not.toContain('server.4=');
  // The sandbox notices within its 2 s check and stops the removed member.
  const deadline = Date.now() + 15_000;
  while (ensemble.member(4).state !== 'stopped' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(ensemble.member(4)).toMatchObject({ state: 'stopped', pid: null });
  // The others never were.
  expect([1, 2, 3].map((id) => ensemble.member(id).state)).toEqual(['running', 'running', 'running']);
}, 120_000);

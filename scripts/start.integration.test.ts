/**
 * `npm start` (scripts/start.ts) as its own process, with tokens in the environment: once it
 * serves, it says how to sign in (which variable, the sign-in page, the bearer header) and never
 * prints a token. The ensemble is a closed port: Keeper serves whether or not it answers, and no
 * ZooKeeper is needed to read what start-up prints.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');
const ADMIN = 'admin-secret-token-0123456789abcdef';
const VIEWER = 'viewer-secret-token-0123456789abcdef';
const dataDir = mkdtempSync(join(tmpdir(), 'keeper-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Everything start.ts prints until it has said how to sign in, then SIGTERM and its exit. */
async function startUpOutput(env: Record<string, string>): Promise<{ out: string; code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--zk', '127.0.0.1:9', '--port', '0', '--data-dir', dataDir], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, KEEPER_WEB_DIST: join(dataDir, 'no-web') },
  });
  let out = '';
  child.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  await new Promise<void>((ready, fail) => {
    child.stdout.on('data', (d) => {
      out += String(d);
      // The last line start-up prints about signing in.
      if (/Authorization: Bearer/.test(out)) ready();
    });
    void exited.then(() => fail(new Error(`start.ts exited before saying how to sign in:\n${out}`)));
    setTimeout(() => fail(new Error(`no sign-in lines within 60 s:\n${out}`)), 60_000).unref();
  }).finally(() => child.kill('SIGTERM'));
  return { out, code: await exited };
}

it('with KEEPER_ADMIN_TOKEN and KEEPER_VIEWER_TOKEN set, start-up says how to sign in without printing either token', async () => {
  const { out, code } = await startUpOutput({ KEEPER_ADMIN_TOKEN: ADMIN, KEEPER_VIEWER_TOKEN: VIEWER });
  const url = /Keeper is serving (http:\/\/\S+)/.exec(out)?.[1];
  expect(url).toBeDefined();
  expect(out).toContain(`${url}/login`);
  expect(out).toMatch(/admin \(reads and writes\)\s+KEEPER_ADMIN_TOKEN/);
  expect(out).toMatch(/viewer \(reads only\)\s+KEEPER_VIEWER_TOKEN/);
  expect(out).toContain(`curl -H "Authorization: Bearer $KEEPER_ADMIN_TOKEN" ${url}/api/ensembles`);
  expect(out).not.toContain(ADMIN);
  expect(out).not.toContain(VIEWER);
  expect(code).toBe(0);
});

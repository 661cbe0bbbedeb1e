/**
 * End-to-end tests in real Chromium (Debian's /usr/bin/chromium, never a downloaded
 * browser) against Keeper serving a real 3-member sandbox ensemble. The web server
 * commands start both, on ports apart from `npm start`'s defaults, and stop both.
 *
 * Two lanes: each worker has its own Keeper and its own sandbox (lane n: Keeper on the e2e port
 * + n, sandbox at the e2e offset + 20 n), so two specs running at once never share a server, an
 * ensemble, an audit trail or a fault. A worker loads this file again with TEST_PARALLEL_INDEX
 * set, which is how `baseURL` and the exports below name its own lane.
 *  - project `e2e`: the specs, two at a time;
 *  - project `e2e-load`: the spec that loads the machine on purpose (a herd of 30 clients), on one
 *    lane after the others: its load would stretch what a spec beside it waits for;
 *  - project `e2e-alone`: the specs that time what the page shows (within 3 s), one at a time,
 *    on a Keeper and sandbox of their own (KEEPER_E2E_SLOT=alone); npm test runs them first for
 *    the CPU beside the others, or after them where it cannot.
 * KEEPER_E2E_LANES=1 runs one lane (npm test does, for `e2e-load` and `e2e-alone`).
 */
import { defineConfig } from '@playwright/test';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEEPER_PORTS, PORT_OFFSETS } from './scripts/sandbox/portOffsets.js';

export const E2E_LANES = Number(process.env.KEEPER_E2E_LANES ?? 2);
/**
 * KEEPER_E2E_SLOT=alone: the timed specs' own Keeper and sandbox, so that npm test can run them
 * beside the other specs (first for the CPU: scripts/test.sh).
 */
const ALONE_SLOT = process.env.KEEPER_E2E_SLOT === 'alone';
const BASE_PORT = Number(process.env.KEEPER_E2E_PORT ?? (ALONE_SLOT ? KEEPER_PORTS.e2eAlone : KEEPER_PORTS.e2e));
const BASE_OFFSET = Number(process.env.KEEPER_E2E_PORT_OFFSET ?? (ALONE_SLOT ? PORT_OFFSETS.e2eAlone : PORT_OFFSETS.e2e));
const lanePort = (lane: number) => BASE_PORT + lane;
const laneOffset = (lane: number) => BASE_OFFSET + 20 * lane;
/** This worker's lane (0 in the main process). */
const LANE = Number(process.env.TEST_PARALLEL_INDEX ?? 0) % E2E_LANES;

/** This worker's Keeper and sandbox. */
export const E2E_PORT = lanePort(LANE);
export const E2E_PORT_OFFSET = laneOffset(LANE);
/**
 * The e2e servers run with authentication on, as `npm start` always does: a known admin token
 * (their own data dirs, so the audit trail and share links of a run stay apart from `npm start`'s).
 * Specs act as that admin by default (the bearer header below also reaches the WebSocket);
 * a spec that needs a viewer or a share link signs in on its own.
 */
export const E2E_ADMIN_TOKEN = process.env.KEEPER_E2E_ADMIN_TOKEN ?? 'e2e-admin-token-0123456789abcdef';
export const E2E_VIEWER_TOKEN = process.env.KEEPER_E2E_VIEWER_TOKEN ?? 'e2e-viewer-token-0123456789abcdef';
/** The first recursive delete of /app/archive stops after this many deletes until cancelled (access.spec.ts). */
export const E2E_DELETE_HOLD_AFTER = 500;

/** Time what the page shows: each alone, after the others (each says why in its header). */
const ALONE = ['freshness.spec.ts', 'viewsFreshness.spec.ts', 'replicas.spec.ts'];
/** Loads the machine on purpose: on one lane, after the others. */
const LOAD = ['herd.spec.ts'];

/** Checkouts on one machine share /tmp (each may run in its own network namespace): one state dir each. */
const CHECKOUT = createHash('sha1').update(process.cwd()).digest('hex').slice(0, 8);

const laneStateDir = (lane: number) => join(tmpdir(), `keeper-e2e-${CHECKOUT}-${laneOffset(lane)}`);
/** This worker's sandbox state dir (its launcher's control socket, for drills). */
export const E2E_STATE_DIR = laneStateDir(LANE);

function laneServer(lane: number) {
  const stateDir = laneStateDir(lane);
  return {
    command: `npx tsx scripts/start.ts --sandbox-port-offset ${laneOffset(lane)} --state-dir ${stateDir} --data-dir ${stateDir}-server --port ${lanePort(lane)}`,
    // Any measured latency counts as a herd's climb: whether 30 workers slow the sandbox depends on
    // the machine (a fast one shows 0.1 ms), and the herd spec checks what Keeper shows of a herd.
    // Sessions are gathered again after 30 s, not 60 s: the idle-sessions spec waits out one cadence
    // (half a minute saved). Not 10 s: the sessions spec reads a dead session from the last gathering
    // a few seconds after it passed, and the session may expire meanwhile; a 10 s cadence under load
    // could have gathered it away, 30 s leaves room.
    env: {
      KEEPER_ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      KEEPER_VIEWER_TOKEN: E2E_VIEWER_TOKEN,
      KEEPER_HERD_LATENCY_MS: '0',
      KEEPER_SESSIONS_CADENCE_MS: '30000',
      KEEPER_TEST_HOLD_DELETE: `/app/archive:${E2E_DELETE_HOLD_AFTER}`,
    },
    url: `http://127.0.0.1:${lanePort(lane)}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe' as const,
    stderr: 'pipe' as const,
    gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 15_000 },
  };
}

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: E2E_LANES,
  // Never retried into green: a spec that fails once is fixed at its cause (issue 33).
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    extraHTTPHeaders: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` },
    // Tracing every test to keep the failures' costs a quarter of the e2e run's CPU (access + ensemble
    // specs: 239 CPU-seconds traced, 179 not, two runs each, 2026-12-07), and CI keeps only the log.
    // KEEPER_E2E_TRACE=retain-on-failure (or any Playwright trace mode) turns it on for a rerun.
    trace: (process.env.KEEPER_E2E_TRACE ?? 'off') as 'off' | 'on' | 'retain-on-failure' | 'on-first-retry',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  projects: [
    { name: 'e2e', testIgnore: [...ALONE, ...LOAD] },
    { name: 'e2e-load', testMatch: LOAD, workers: 1, dependencies: ['e2e'] },
    { name: 'e2e-alone', testMatch: ALONE, workers: 1, dependencies: ['e2e-load'] },
  ],
  webServer: Array.from({ length: E2E_LANES }, (_, lane) => laneServer(lane)),
});

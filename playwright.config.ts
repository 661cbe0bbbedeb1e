/**
 * End-to-end tests in real Chromium (Debian's /usr/bin/chromium, never a downloaded
 * browser) against Keeper serving a real 3-member sandbox ensemble. The web server
 * command starts both, on ports apart from `npm start`'s defaults, and stops both.
 */
import { defineConfig } from '@playwright/test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEEPER_PORTS, PORT_OFFSETS } from './scripts/sandbox/portOffsets.js';

export const E2E_PORT = Number(process.env.KEEPER_E2E_PORT ?? KEEPER_PORTS.e2e);
export const E2E_PORT_OFFSET = Number(process.env.KEEPER_E2E_PORT_OFFSET ?? PORT_OFFSETS.e2e);
const stateDir = join(tmpdir(), `keeper-e2e-${E2E_PORT_OFFSET}`);
/**
 * The e2e server runs with authentication on, as `npm start` always does: a known admin token
 * (its own data dir, so the audit trail and share links of a run stay apart from `npm start`'s).
 * Specs act as that admin by default (the bearer header below also reaches the WebSocket);
 * a spec that needs a viewer or a share link signs in on its own.
 */
export const E2E_ADMIN_TOKEN = process.env.KEEPER_E2E_ADMIN_TOKEN ?? 'e2e-admin-token-0123456789abcdef';
export const E2E_VIEWER_TOKEN = process.env.KEEPER_E2E_VIEWER_TOKEN ?? 'e2e-viewer-token-0123456789abcdef';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    extraHTTPHeaders: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  webServer: {
    command: `npx tsx scripts/start.ts --sandbox-port-offset ${E2E_PORT_OFFSET} --state-dir ${stateDir} --data-dir ${stateDir}-server --port ${E2E_PORT}`,
    // Any measured latency counts as a herd's climb: whether 30 workers slow the sandbox depends on
    // the machine (a fast one shows 0.1 ms), and the herd spec checks what Keeper shows of a herd.
    env: { KEEPER_ADMIN_TOKEN: E2E_ADMIN_TOKEN, KEEPER_VIEWER_TOKEN: E2E_VIEWER_TOKEN, KEEPER_HERD_LATENCY_MS: '0' },
    url: `http://127.0.0.1:${E2E_PORT}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
  },
});

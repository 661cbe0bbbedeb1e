/**
 * End-to-end tests in real Chromium (Debian's /usr/bin/chromium, never a downloaded
 * browser) against Keeper serving a real 3-member sandbox ensemble. The web server
 * command starts both, on ports apart from `npm start`'s defaults, and stops both.
 */
import { defineConfig } from '@playwright/test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const E2E_PORT = Number(process.env.KEEPER_E2E_PORT ?? 18181);
export const E2E_PORT_OFFSET = Number(process.env.KEEPER_E2E_PORT_OFFSET ?? 24000);
const stateDir = join(tmpdir(), `keeper-e2e-${E2E_PORT_OFFSET}`);

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
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  webServer: {
    command: `npx tsx scripts/start.ts --sandbox-port-offset ${E2E_PORT_OFFSET} --state-dir ${stateDir} --port ${E2E_PORT}`,
    url: `http://127.0.0.1:${E2E_PORT}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
  },
});

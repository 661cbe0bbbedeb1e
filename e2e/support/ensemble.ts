import { PORT_OFFSETS } from '../../scripts/sandbox/portOffsets.js';

/** Where the e2e ensemble is: the same port offset playwright.config.ts gives the sandbox. */
export const E2E_PORT_OFFSET = Number(process.env.KEEPER_E2E_PORT_OFFSET ?? PORT_OFFSETS.e2e);

export const E2E_HOSTS = [1, 2, 3].map((n) => `127.0.0.1:${2190 + n + E2E_PORT_OFFSET}`).join(',');

/** One znode directory per test and retry, so specs never trip over each other's nodes. */
export function testRoot(testId: string, retry: number): string {
  return `/e2e/${testId.replace(/[^a-zA-Z0-9_-]/g, '_')}-${retry}-${Date.now()}`;
}

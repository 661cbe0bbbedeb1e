import { E2E_PORT_OFFSET, E2E_STATE_DIR } from '../../playwright.config.js';

/** Where this worker's e2e ensemble is: its lane's sandbox (playwright.config.ts). */
export { E2E_PORT_OFFSET, E2E_STATE_DIR };

export const E2E_HOSTS = [1, 2, 3].map((n) => `127.0.0.1:${2190 + n + E2E_PORT_OFFSET}`).join(',');

/** One znode directory per test and retry, so specs never trip over each other's nodes. */
export function testRoot(testId: string, retry: number): string {
  return `/e2e/${testId.replace(/[^a-zA-Z0-9_-]/g, '_')}-${retry}-${Date.now()}`;
}

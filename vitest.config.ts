/**
 * Two projects: `unit` (fast, parallel, no ZooKeeper) and `integration` (real ZooKeeper
 * JVMs from scripts/sandbox: one file at a time, so ensembles never compete for ports
 * or CPU, and only after the unit tests are done).
 *   npx vitest run                      both
 *   npx vitest run --project unit       (npm run test:unit)
 *   npx vitest run --project integration
 */
import { defineConfig } from 'vitest/config';

const INTEGRATION = '**/*.integration.test.ts';
const IGNORED = ['**/node_modules/**', '**/dist/**', 'e2e/**'];

export default defineConfig({
  test: {
    // Each test's file:line:column, so npm test's summary counts a parameterised test once as declared.
    includeTaskLocation: true,
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'shared/test/**/*.test.ts',
            'server/test/**/*.test.ts',
            'scripts/**/*.test.ts',
            // Web unit tests run under node; a file that needs a DOM declares
            // `// @vitest-environment jsdom` itself.
            'web/src/**/*.test.{ts,tsx}',
            'web/test/**/*.test.{ts,tsx}',
          ],
          exclude: [...IGNORED, INTEGRATION],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: [INTEGRATION],
          exclude: IGNORED,
          fileParallelism: false,
          // JVM start-up, elections and session timeouts are seconds each.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

/**
 * Three projects. A plain `vitest run` runs them one after the other; npm test (scripts/test.sh)
 * runs `unit` and `integration` beside tsc, ESLint and e2e, then `integration-alone` on its own:
 *  - `unit`: fast, parallel, no ZooKeeper, the files of a worker sharing their modules; the few
 *    that mock modules in `unit-isolated`, each with its own (npm test runs both as "unit");
 *  - `integration`: real ZooKeeper JVMs from scripts/sandbox, two files at a time. Files that do
 *    not break their ensemble borrow one from a pool of shared ensembles (sharedEnsemble.ts); the
 *    others start their own on their own ports (startTestEnsemble), so two files never meet;
 *  - `integration-alone`: the files whose assertions time what Keeper shows (within 3 s, within
 *    the session timeout), two at a time and with nothing else running (npm test runs them after
 *    everything but the timed e2e specs): a busy neighbour (the other integration files, e2e)
 *    would stretch the times they check. Two of them keep the 2-core machine under half busy.
 *   npx vitest run                      all three
 *   npx vitest run --project unit --project unit-isolated   (npm run test:unit)
 *   npx vitest run --project 'integration*'
 */
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const INTEGRATION = '**/*.integration.test.ts';
const IGNORED = ['**/node_modules/**', '**/dist/**', 'e2e/**'];
/** Timed assertions: with nothing else running (see above). */
const ALONE = [
  'server/test/freshness.integration.test.ts',
  'server/test/memberFreshness.integration.test.ts',
  'server/test/gateway.integration.test.ts',
  'server/test/ensemble.integration.test.ts',
  'server/test/herd.integration.test.ts',
  'server/test/hub.integration.test.ts',
  'server/test/locks.integration.test.ts',
  'server/test/upgradesLoad.integration.test.ts',
  'server/test/replicas.integration.test.ts',
  'server/test/replicasBehindNginx.integration.test.ts',
  // Failed side by side at a load of 17 (2026-12-07): a leader removing itself outlasted the
  // lost-reply read-back, and the tests after it share the resized ensemble (reconfig); an upgrade's
  // first restart did not begin within a minute (replicasFaults). Their windows are elections and
  // session timeouts, which a neighbour's load stretches.
  'server/test/reconfig.integration.test.ts',
  'server/test/replicasFaults.integration.test.ts',
  // A lock scan paces itself by the members' latency (scanPacer.ts): beside the other integration
  // files at a load of 15 its walk crawled and the file's waits ran out, twice in fresh clones
  // (2026-12-07). Alone it passes in about 40 s.
  'server/test/replicaLockScan.integration.test.ts',
  'scripts/sandbox/drills.integration.test.ts',
  'scripts/sandbox/ensemble.integration.test.ts',
];
/** Unit files that replace modules (vi.mock): each needs a module registry of its own. */
const UNIT_ISOLATED = [
  'server/test/unit/childrenPageCache.test.ts',
  'web/src/features/sessions/SessionsView.test.tsx',
  'web/src/features/tree/readOnlyWrites.test.tsx',
];
/** Unit files are CPU-bound: one per core (KEEPER_UNIT_WORKERS overrides, for measuring). */
const UNIT_WORKERS = Number(process.env.KEEPER_UNIT_WORKERS ?? availableParallelism());
/** Integration files at a time (KEEPER_INTEGRATION_WORKERS overrides, for measuring; the pool has offsets for up to 3 and a spare). */
const INTEGRATION_WORKERS = Number(process.env.KEEPER_INTEGRATION_WORKERS ?? 2);
/** Timed files at a time (KEEPER_ALONE_WORKERS overrides, for measuring): 45% busy at 2, 129 s instead of 233 s. */
const ALONE_WORKERS = Number(process.env.KEEPER_ALONE_WORKERS ?? 2);
/** JVM start-up, elections and session timeouts are seconds each. */
const SLOW = { testTimeout: 120_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    // Each test's file:line:column, so npm test's summary counts a parameterised test once as declared.
    includeTaskLocation: true,
    // The shared-ensemble pool stops its JVMs at the end (a few seconds on a loaded machine).
    teardownTimeout: 60_000,
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
          exclude: [...IGNORED, INTEGRATION, ...UNIT_ISOLATED],
          // One module registry per worker, not one per file: importing each file's graph anew
          // was three quarters of the unit run's CPU (249 s of CPU, 132 s on 2 cores; 76 s and 45 s
          // shared). A file that mocks modules needs its own: UNIT_ISOLATED.
          isolate: false,
          // Each test's DOM is removed after it (see the file).
          setupFiles: ['web/test/cleanupEachTest.ts'],
          // A guard against hangs, not a budget: at load 20 on 2 cores, 24 sound tests (100,000-name
          // sorts, jsdom renders) outran vitest's default 5 s. Speed is measured in bench/.
          testTimeout: 30_000,
          // vitest's default is one worker fewer than the cores: one on the 2-core machine npm test
          // targets, leaving a core idle through ~170 files of imports and pure logic.
          maxWorkers: UNIT_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'unit-isolated',
          include: UNIT_ISOLATED,
          exclude: IGNORED,
          testTimeout: 30_000,
          maxWorkers: UNIT_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: [INTEGRATION],
          exclude: [...IGNORED, ...ALONE],
          // One module registry per worker, as unit's: importing the server's graph anew per file was
          // 133 of 734 CPU-seconds (592 s → 471 s on 2 cores, 2026-12-07). No integration file mocks a
          // module; each starts its own Keeper, and the few process-wide settings they make (a SASL
          // password's variable) are named per file. KEEPER_INTEGRATION_ISOLATE=1 isolates, to compare.
          isolate: process.env.KEEPER_INTEGRATION_ISOLATE === '1',
          maxWorkers: INTEGRATION_WORKERS,
          globalSetup: ['server/test/support/ensemblePoolSetup.ts'],
          ...SLOW,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'integration-alone',
          include: ALONE,
          exclude: IGNORED,
          fileParallelism: ALONE_WORKERS > 1,
          maxWorkers: ALONE_WORKERS,
          ...SLOW,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

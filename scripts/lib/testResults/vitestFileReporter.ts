/**
 * A vitest reporter that writes one entry per test file: its project, how long it took (its
 * imports and hooks included, which vitest's JSON report leaves out), and each test
 * case with the source location that declared it, so a parameterised test (`it.each`, or `it`
 * in a loop) counts once as declared and once per case as run. npm test reads it
 * (scripts/lib/testResults/summary.ts) to print honest counts and the slowest files.
 *
 *   vitest run --reporter=default --reporter=./scripts/lib/testResults/vitestFileReporter.ts
 *   (the report goes to $KEEPER_VITEST_FILES, or nowhere when it is unset)
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { CaseReport, FileReport } from './types.js';

function outcomeOf(test: TestCase): CaseReport['outcome'] {
  const state = test.result().state;
  if (state === 'passed') return (test.diagnostic()?.retryCount ?? 0) > 0 ? 'flaky' : 'passed';
  return state === 'failed' ? 'failed' : 'skipped';
}

export default class VitestFileReporter implements Reporter {
  private readonly files: FileReport[] = [];

  private readonly out: string | undefined;

  /** vitest passes a reporter's options (`['path', { outputFile }]` in a config) to its constructor. */
  constructor(options: { outputFile?: string } = {}) {
    this.out = options.outputFile ?? process.env.KEEPER_VITEST_FILES;
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const file = relative(process.cwd(), module.moduleId);
    this.files.push({
      runner: 'vitest',
      project: module.project.name,
      file,
      // Its worker's time on it: preparing, importing, then every hook and test.
      wallMs: Math.round(d.prepareDuration + d.environmentSetupDuration + d.collectDuration + d.setupDuration + d.duration),
      // A file that failed before any test ran (an import or a beforeAll) has no case to say so.
      error: module.errors().length > 0 ? (module.errors()[0]?.message ?? 'failed') : null,
      cases: [...module.children.allTests()].map((test) => {
        const outcome = outcomeOf(test);
        return {
          title: test.fullName,
          declaredAt: test.location ? `${file}:${test.location.line}:${test.location.column}` : `${file}:${test.fullName}`,
          outcome,
          retries: test.diagnostic()?.retryCount ?? 0,
          ...(outcome === 'failed' ? { error: test.result().errors?.[0]?.message ?? 'failed' } : {}),
        };
      }),
    });
  }

  onTestRunEnd(): void {
    if (this.out) writeFileSync(this.out, `${JSON.stringify(this.files)}\n`);
  }
}

/** Playwright's JSON report (reporter `json`) as one FileReport per spec file. */
import type { CaseReport, FileReport } from './types.js';

interface PwResult {
  status: string;
  duration: number;
  retry: number;
  startTime: string;
  error?: { message?: string };
}
interface PwTest {
  projectName: string;
  status: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  results: PwResult[];
}
interface PwSpec {
  title: string;
  file: string;
  line: number;
  column: number;
  tests: PwTest[];
}
interface PwSuite {
  title: string;
  file: string;
  specs?: PwSpec[];
  suites?: PwSuite[];
}
export interface PwReport {
  suites?: PwSuite[];
  errors?: { message?: string }[];
}

const OUTCOME: Record<PwTest['status'], CaseReport['outcome']> = { expected: 'passed', unexpected: 'failed', flaky: 'flaky', skipped: 'skipped' };

/** `dir` is Playwright's testDir relative to the repository ('e2e'): its report names files inside it. */
export function playwrightFiles(report: PwReport, dir: string): FileReport[] {
  const byFile = new Map<string, { specs: { spec: PwSpec; path: string[] }[] }>();
  const walk = (suite: PwSuite, path: string[]) => {
    for (const spec of suite.specs ?? []) {
      const entry = byFile.get(spec.file) ?? { specs: [] };
      entry.specs.push({ spec, path });
      byFile.set(spec.file, entry);
    }
    for (const child of suite.suites ?? []) walk(child, [...path, child.title]);
  };
  for (const top of report.suites ?? []) walk(top, []);

  return [...byFile].map(([file, { specs }]) => {
    const results = specs.flatMap(({ spec }) => spec.tests.flatMap((t) => t.results));
    const starts = results.map((r) => Date.parse(r.startTime)).filter(Number.isFinite);
    const ends = results.map((r) => Date.parse(r.startTime) + r.duration).filter(Number.isFinite);
    const path = `${dir}/${file}`;
    return {
      runner: 'playwright' as const,
      project: specs[0]?.spec.tests[0]?.projectName || 'e2e',
      file: path,
      wallMs: starts.length ? Math.max(...ends) - Math.min(...starts) : 0,
      error: null,
      cases: specs.flatMap(({ spec, path: suites }) =>
        spec.tests.map((t) => ({
          title: [...suites, spec.title].join(' > '),
          declaredAt: `${path}:${spec.line}:${spec.column}`,
          outcome: OUTCOME[t.status],
          retries: Math.max(0, ...t.results.map((r) => r.retry)),
          ...(t.status === 'unexpected' ? { error: t.results.at(-1)?.error?.message ?? 'failed' } : {}),
        })),
      ),
    };
  });
}

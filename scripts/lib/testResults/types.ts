/** One test file's results, from vitest (vitestFileReporter.ts) or Playwright (its JSON report). */
export interface FileReport {
  runner: 'vitest' | 'playwright';
  /** vitest's project (unit, integration) or Playwright's (chromium). */
  project: string;
  /** Relative to the repository. */
  file: string;
  /** From the file's start to its end, hooks and set-up included. */
  wallMs: number;
  /** An error outside any test (a failed import or beforeAll), or null. */
  error: string | null;
  cases: CaseReport[];
}

export interface CaseReport {
  title: string;
  /** file:line:column of the `it`/`test` call: cases of one parameterised test share it. */
  declaredAt: string;
  /** flaky: failed, then passed on a retry. */
  outcome: 'passed' | 'failed' | 'flaky' | 'skipped';
  retries: number;
  /** A failed case's first error, its first lines: what CI's tail of the log shows of it. */
  error?: string;
}

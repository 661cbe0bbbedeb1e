/**
 * npm test's closing summary, from every test file's report (vitest and Playwright alike):
 *  - tests counted twice, honestly: as declared in the source (one `it.each` is one test) and as
 *    cases run (each of its rows is one);
 *  - a flaky test (failed, then passed on a retry) is named and counted apart from the passed;
 *    one whose file or title speaks of freshness or truth fails the run, since those specs check
 *    what the page claims about time and a claim that holds only on a second try does not hold;
 *  - skipped tests are named, so a skip cannot go unnoticed;
 *  - the slowest files, by wall time from their start to their end, set-up included;
 *  - last, each file that failed outside its tests and each failed test by name with the start
 *    of its error, so the tail of the log that CI keeps says what failed.
 */
import type { CaseReport, FileReport } from './types.js';

/** A flaky test here fails the run (checked against the file path and the test's title). */
export const STRICT_FLAKY = /freshness|truth/i;

export interface Summary {
  lines: string[];
  /** The last line, the one CI reads: "N passed, N failed, …". */
  closing: string;
  ok: boolean;
}

const n = (x: number) => x.toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);

/** Failed tests named at the end; past this many, the runners' own output above has the rest. */
const MAX_FAILURES_NAMED = 15;

/** The start of an error, indented under its test, without colour codes; a bounded number of lines. */
function errorLines(error: string | undefined, { lines = 4, width = 200 } = {}): string[] {
  if (!error) return [];
  // eslint-disable-next-line no-control-regex -- runners colour their messages; the summary is plain
  const plain = error.replace(/\u001b\[[0-9;]*m/g, '');
  return plain
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, lines)
    .map((line) => `      ${line.length > width ? `${line.slice(0, width)}…` : line}`);
}

export function summarize(files: readonly FileReport[], { slowest = 10 } = {}): Summary {
  const cases = files.flatMap((f) => f.cases.map((c) => ({ ...c, file: f.file })));
  const count = (outcome: CaseReport['outcome']) => cases.filter((c) => c.outcome === outcome).length;
  const declared = new Set(cases.map((c) => c.declaredAt)).size;
  const brokenFiles = files.filter((f) => f.error !== null);
  const flaky = cases.filter((c) => c.outcome === 'flaky');
  const strictFlaky = flaky.filter((c) => STRICT_FLAKY.test(c.file) || STRICT_FLAKY.test(c.title));
  const skipped = cases.filter((c) => c.outcome === 'skipped');
  const failed = count('failed');

  const lines: string[] = [];
  const byRunner = (runner: FileReport['runner']) => {
    const own = files.filter((f) => f.runner === runner).flatMap((f) => f.cases);
    return `${runner}: ${n(new Set(own.map((c) => c.declaredAt)).size)} declared, ${n(own.length)} run`;
  };
  lines.push(
    `Tests: ${n(declared)} declared in the source, ${n(cases.length)} cases run (a parameterised test runs once per case) — ${byRunner('vitest')}; ${byRunner('playwright')}`,
  );
  if (flaky.length > 0) {
    lines.push(`Flaky (failed, then passed on a retry; not counted as passed): ${flaky.length}`);
    for (const c of flaky) lines.push(`  ${c.file}: ${c.title}${strictFlaky.includes(c) ? '  <- a freshness/truth test: fails the run' : ''}`);
  }
  if (skipped.length > 0) {
    lines.push(`Skipped: ${skipped.length}`);
    for (const c of skipped) lines.push(`  ${c.file}: ${c.title}`);
  }
  const ranked = [...files].sort((a, b) => b.wallMs - a.wallMs).slice(0, slowest);
  if (ranked.length > 0) {
    lines.push(`The ${ranked.length} slowest files (wall time, set-up included):`);
    for (const f of ranked) lines.push(`${seconds(f.wallMs)}  ${f.project.padEnd(11)} ${f.file} (${f.cases.length} cases)`);
  }

  for (const f of brokenFiles) lines.push(`Failed outside any test: ${f.file}: ${f.error}`);
  const failures = cases.filter((c) => c.outcome === 'failed');
  if (failures.length > 0) {
    lines.push(`Failed: ${failures.length}`);
    for (const c of failures.slice(0, MAX_FAILURES_NAMED)) lines.push(`  ${c.file}: ${c.title}`, ...errorLines(c.error));
    if (failures.length > MAX_FAILURES_NAMED) lines.push(`  … and ${failures.length - MAX_FAILURES_NAMED} more (the runners' output above names them)`);
  }

  const closing =
    `${n(count('passed'))} passed, ${n(failed)} failed, ${n(flaky.length)} flaky, ${n(skipped.length)} skipped` +
    ` (${n(declared)} tests declared, ${n(cases.length)} cases)` +
    (brokenFiles.length > 0 ? `, ${brokenFiles.length} file${brokenFiles.length === 1 ? '' : 's'} failed outside any test` : '') +
    (strictFlaky.length > 0 ? `; FAILED: ${strictFlaky.length} flaky freshness/truth test${strictFlaky.length === 1 ? '' : 's'}` : '');
  return { lines, closing, ok: failed === 0 && brokenFiles.length === 0 && strictFlaky.length === 0 };
}

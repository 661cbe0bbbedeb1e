/** npm test's summary: honest counts, flaky tests apart and named, the slowest files. */
import { describe, expect, it } from 'vitest';
import { playwrightFiles, type PwReport } from './playwrightFiles.js';
import { summarize } from './summary.js';
import type { CaseReport, FileReport } from './types.js';

const test = (title: string, declaredAt: string, outcome: CaseReport['outcome'] = 'passed'): CaseReport => ({
  title,
  declaredAt,
  outcome,
  retries: outcome === 'flaky' ? 1 : 0,
});
const file = (path: string, wallMs: number, cases: CaseReport[], extra: Partial<FileReport> = {}): FileReport => ({
  runner: 'vitest',
  project: 'unit',
  file: path,
  wallMs,
  error: null,
  cases,
  ...extra,
});

/** A spec file in Playwright's JSON shape: one test passed, one flaky (failed then passed), one skipped, in a describe. */
const report: PwReport = {
  suites: [
    {
      title: 'freshness.spec.ts',
      file: 'freshness.spec.ts',
      specs: [
        {
          title: 'a hung member',
          file: 'freshness.spec.ts',
          line: 10,
          column: 1,
          tests: [
            {
              projectName: 'chromium',
              status: 'flaky',
              results: [
                { status: 'failed', duration: 4_000, retry: 0, startTime: '2026-11-30T10:00:00.000Z' },
                { status: 'passed', duration: 3_000, retry: 1, startTime: '2026-11-30T10:00:04.000Z' },
              ],
            },
          ],
        },
      ],
      suites: [
        {
          title: 'views',
          file: 'freshness.spec.ts',
          specs: [
            {
              title: 'the tree',
              file: 'freshness.spec.ts',
              line: 20,
              column: 3,
              tests: [
                {
                  projectName: 'chromium',
                  status: 'expected',
                  results: [{ status: 'passed', duration: 1_000, retry: 0, startTime: '2026-11-30T10:00:07.000Z' }],
                },
              ],
            },
            {
              title: 'a screenshot',
              file: 'freshness.spec.ts',
              line: 30,
              column: 3,
              tests: [{ projectName: 'chromium', status: 'skipped', results: [] }],
            },
          ],
        },
      ],
    },
  ],
};

describe('playwrightFiles', () => {
  it('reads each spec file with its wall time, its cases, their declarations and a flaky one as flaky', () => {
    const [spec] = playwrightFiles(report, 'e2e');
    expect(spec).toMatchObject({ runner: 'playwright', project: 'chromium', file: 'e2e/freshness.spec.ts', wallMs: 8_000, error: null });
    expect(spec!.cases).toEqual([
      { title: 'a hung member', declaredAt: 'e2e/freshness.spec.ts:10:1', outcome: 'flaky', retries: 1 },
      { title: 'views > the tree', declaredAt: 'e2e/freshness.spec.ts:20:3', outcome: 'passed', retries: 0 },
      { title: 'views > a screenshot', declaredAt: 'e2e/freshness.spec.ts:30:3', outcome: 'skipped', retries: 0 },
    ]);
  });
});

describe('summarize', () => {
  it('counts a parameterised test once as declared and once per case as run', () => {
    const cases = [1, 2, 3].map((i) => test(`sizes ${i}`, 'a.test.ts:5:3'));
    const { closing, lines, ok } = summarize([file('a.test.ts', 10, [...cases, test('other', 'a.test.ts:9:3')])]);
    expect(closing).toBe('4 passed, 0 failed, 0 flaky, 0 skipped (2 tests declared, 4 cases)');
    expect(lines[0]).toContain('2 declared in the source, 4 cases run');
    expect(ok).toBe(true);
  });

  it('names flaky tests, keeps them out of the passed, and fails the run for a freshness or truth one only', () => {
    const plain = summarize([file('e2e/tree.spec.ts', 10, [test('follows kazoo', 'e2e/tree.spec.ts:3:1', 'flaky')], { runner: 'playwright' })]);
    expect(plain.closing).toMatch(/^0 passed, 0 failed, 1 flaky/);
    expect(plain.lines).toContain('  e2e/tree.spec.ts: follows kazoo');
    expect(plain.ok).toBe(true);

    const fresh = summarize(playwrightFiles(report, 'e2e'));
    expect(fresh.ok).toBe(false);
    expect(fresh.closing).toBe('1 passed, 0 failed, 1 flaky, 1 skipped (3 tests declared, 3 cases); FAILED: 1 flaky freshness/truth test');
    expect(fresh.lines.some((l) => l.includes('a hung member') && l.includes('fails the run'))).toBe(true);
    expect(fresh.lines).toContain('  e2e/freshness.spec.ts: views > a screenshot');

    const titled = summarize([file('e2e/x.spec.ts', 1, [test('truth first: as of', 'e2e/x.spec.ts:1:1', 'flaky')])]);
    expect(titled.ok).toBe(false);
  });

  it('fails on a failed test and on a file that broke outside its tests', () => {
    expect(summarize([file('a.test.ts', 1, [test('x', 'a:1:1', 'failed')])]).ok).toBe(false);
    const broken = summarize([file('b.test.ts', 1, [], { error: 'beforeAll timed out' })]);
    expect(broken.ok).toBe(false);
    expect(broken.closing).toContain('1 file failed outside any test');
    expect(broken.lines).toContain('Failed outside any test: b.test.ts: beforeAll timed out');
  });

  it('names each failed test last, with the start of its error and no colour codes, at most fifteen', () => {
    const failed: CaseReport = {
      ...test('reads the trail', 'u.test.ts:3:1', 'failed'),
      error: '\u001b[31mexpected 1 to be 2\u001b[39m\n\n  at u.test.ts:4:5\n' + 'x'.repeat(300) + '\nfourth line\nfifth line',
    };
    const { lines } = summarize([file('u.test.ts', 1, [failed, test('fine', 'u.test.ts:9:1')]), file('z.test.ts', 9, [test('t', 'z:1:1')])]);
    expect(lines.slice(-6)).toEqual([
      'Failed: 1',
      '  u.test.ts: reads the trail',
      '      expected 1 to be 2',
      '      at u.test.ts:4:5',
      `      ${'x'.repeat(200)}…`,
      '      fourth line',
    ]);

    const many = Array.from({ length: 20 }, (_, i) => test(`t${i}`, `m:${i}:1`, 'failed'));
    const named = summarize([file('m.test.ts', 1, many)]).lines;
    expect(named.filter((l) => l.startsWith('  m.test.ts: '))).toHaveLength(15);
    expect(named.at(-1)).toBe("  … and 5 more (the runners' output above names them)");
  });

  it("keeps a failed Playwright test's last error", () => {
    const failing: PwReport = {
      suites: [
        {
          title: 'a.spec.ts',
          file: 'a.spec.ts',
          specs: [
            {
              title: 'shows it',
              file: 'a.spec.ts',
              line: 5,
              column: 1,
              tests: [
                {
                  projectName: 'e2e',
                  status: 'unexpected',
                  results: [
                    { status: 'failed', duration: 1, retry: 0, startTime: '2026-11-30T10:00:00.000Z', error: { message: 'first try' } },
                    {
                      status: 'failed',
                      duration: 1,
                      retry: 1,
                      startTime: '2026-11-30T10:00:01.000Z',
                      error: { message: 'Timed out 5000ms waiting for expect(locator).toBeVisible()' },
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const [spec] = playwrightFiles(failing, 'e2e');
    expect(spec?.cases[0]).toMatchObject({ outcome: 'failed', error: 'Timed out 5000ms waiting for expect(locator).toBeVisible()' });
    expect(summarize(playwrightFiles(failing, 'e2e')).lines.slice(-2)).toEqual([
      '  e2e/a.spec.ts: shows it',
      '      Timed out 5000ms waiting for expect(locator).toBeVisible()',
    ]);
  });

  it('lists the slowest files first, at most ten', () => {
    const files = Array.from({ length: 12 }, (_, i) => file(`f${i}.test.ts`, (i + 1) * 1_000, [test('t', `f${i}:1:1`)], { project: 'integration' }));
    const { lines } = summarize(files);
    const at = lines.findIndex((l) => l.startsWith('The 10 slowest files'));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines.slice(at + 1)).toHaveLength(10);
    expect(lines[at + 1]).toBe('  12.0 s  integration f11.test.ts (1 cases)');
    expect(lines.at(-1)).toContain('f2.test.ts');
  });
});

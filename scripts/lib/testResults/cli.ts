/**
 * npm test's last words: reads what the runs left and prints the summary (summary.ts), ending
 * with the one line CI reads. Exits 1 when the results fail the run (a failure, a file that broke
 * outside its tests, a flaky freshness/truth test), whatever the runners' own exit codes said.
 *
 *   tsx scripts/lib/testResults/cli.ts [--vitest files.json ...] [--playwright report.json ...]
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { playwrightFiles, type PwReport } from './playwrightFiles.js';
import { summarize } from './summary.js';
import type { FileReport } from './types.js';

const { values } = parseArgs({ options: { vitest: { type: 'string', multiple: true }, playwright: { type: 'string', multiple: true } } });
const read = <T>(file: string | undefined): T | null => (file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : null);

const files: FileReport[] = [
  ...(values.vitest ?? []).flatMap((file) => read<FileReport[]>(file) ?? []),
  ...(values.playwright ?? []).flatMap((file) => playwrightFiles(read<PwReport>(file) ?? {}, 'e2e')),
];
const { lines, closing, ok } = summarize(files);
console.log(['', ...lines, '', closing].join('\n'));
process.exitCode = ok ? 0 : 1;

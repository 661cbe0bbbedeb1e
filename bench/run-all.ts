/**
 * Runs the benches one after another, each in its own process (its own ensemble,
 * Keeper, heap and JIT), then prints one markdown summary table for docs/benchmarks.md.
 * A bench that fails is reported as such; the others still run.
 *
 *   npx tsx bench/run-all.ts        (or: npm run bench)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESULT_FILE_ENV } from './support/lifecycle.js';
import { markdownTable, type BenchResult } from './support/report.js';

const BENCHES = [
  'fanout',
  'latency',
  'children',
  'secure',
  'poller',
  'herd',
  'locks',
  'lockAnalysis',
  'upgrades',
  'reconfig',
  'scale',
  'sharedPolling',
  'replicaFailover',
  'identitiesChange',
  'bundle',
] as const;
const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(benchDir);

let current: ReturnType<typeof spawn> | null = null;
let interrupted = false;
// ^C reaches the bench too (same process group) and it cleans up; we wait for it, then stop.
// A SIGTERM is only ours: pass it on.
process.on('SIGINT', () => (interrupted = true));
process.on('SIGTERM', () => {
  interrupted = true;
  current?.kill('SIGTERM');
});

function runOne(name: string, resultFile: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(benchDir, `${name}.ts`)], {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...process.env, [RESULT_FILE_ENV]: resultFile },
    });
    current = child;
    child.on('error', (error) => {
      process.stderr.write(`[run-all] could not start ${name}: ${error.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      current = null;
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const tmp = mkdtempSync(join(os.tmpdir(), 'keeper-bench-results-'));
const results: BenchResult[] = [];
const failed: string[] = [];
const began = Date.now();
try {
  for (const name of BENCHES) {
    if (interrupted) break;
    const file = join(tmp, `${name}.json`);
    const code = await runOne(name, file);
    if (code !== 0) {
      failed.push(`${name} (exit ${code})`);
      continue;
    }
    results.push(JSON.parse(readFileSync(file, 'utf8')) as BenchResult);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const cpus = os.cpus();
const zk = [...new Set(results.map((r) => r.zookeeperVersion))].join(', ') || 'unknown';
const summary = [
  '## Benchmarks',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} (${cpus.length} cores), Node ${process.version}, ` +
    `a 3-member ZooKeeper ${zk} sandbox on loopback; Keeper, browsers and raw clients in one process per bench. ` +
    "Ratios compare Keeper with a raw node-zookeeper-client in the same run (fan-out: 100 browsers with 1; poller: 50 browsers with 1; herd: Keeper's requests during a kazoo herd with the same while idle; upgrades: kazoo writers' longest wait during Keeper's rolling restart with the same during plain sandbox restarts; reconfig: kazoo writers' longest wait and p99 write latency per step of Keeper's 3 → 5 → 3 resize with the same steps sent by a raw client; secure: Keeper/raw over TLS + SASL divided by Keeper/raw over plain TCP).",
  '',
  markdownTable(results.flatMap((r) => r.rows.map((row) => ({ ...row, bench: r.bench })))),
];
const notes = results.flatMap((r) => r.notes.map((n) => `- ${r.bench}: ${n}`));
if (notes.length > 0) summary.push('', 'Notes:', ...notes);
if (failed.length > 0) summary.push('', `Failed: ${failed.join(', ')}`);
if (interrupted) summary.push('', 'Interrupted: the table is incomplete.');
summary.push('', `(all benches: ${((Date.now() - began) / 1000).toFixed(0)} s)`);
process.stdout.write(`${summary.join('\n')}\n`);
process.exit(failed.length > 0 || interrupted ? 1 : 0);

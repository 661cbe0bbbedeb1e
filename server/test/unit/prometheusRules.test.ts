/**
 * The shipped alerting rules (docs/prometheus/keeper-rules.yml) are valid for Debian's Prometheus
 * and fire as their own unit tests say (keeper-rules.test.yml: each alert after its `for`, never
 * before). A real Prometheus firing them on a killed member is in metrics.integration.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../../docs/prometheus');

function promtool(...args: string[]) {
  const run = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8', timeout: 30_000 });
  if (run.error) throw new Error(`promtool (Debian's prometheus package; scripts/setup.sh --for-tests installs it): ${run.error.message}`);
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('the shipped Prometheus rules', () => {
  it('pass promtool check rules', () => {
    const { status, out } = promtool('check', 'rules', 'keeper-rules.yml');
    expect(out).toMatch(/SUCCESS: 6 rules found/);
    expect(status).toBe(0);
  });

  it('pass their promtool unit tests', () => {
    const { status, out } = promtool('test', 'rules', 'keeper-rules.test.yml');
    expect(out).toMatch(/SUCCESS/);
    expect(status).toBe(0);
  });
});

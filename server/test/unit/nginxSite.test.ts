/** The shipped nginx site file gives up on an idle connection to Keeper before Keeper closes it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IDLE_CONNECTION_MS } from '../../src/http/idleConnections.js';

const SITE = readFileSync(join(import.meta.dirname, '../../../docs/nginx/keeper.conf'), 'utf8');

/** nginx's time syntax as the file uses it: "4s", "500ms". */
function millis(value: string): number {
  const m = /^(\d+)(ms|s)$/.exec(value);
  if (!m) throw new Error(`not an nginx time this test reads: ${value}`);
  return Number(m[1]) * (m[2] === 's' ? 1_000 : 1);
}

describe('docs/nginx/keeper.conf', () => {
  it('keeps idle upstream connections for less than Keeper does, so it never reuses one Keeper is closing', () => {
    const upstream = /upstream keeper \{([^}]*)\}/.exec(SITE)?.[1] ?? '';
    expect(upstream).toMatch(/keepalive \d+;/);
    const timeout = /keepalive_timeout (\S+);/.exec(upstream)?.[1];
    expect(timeout, 'an upstream keepalive_timeout (nginx would keep them 60 s)').toBeDefined();
    expect(millis(timeout!)).toBeLessThan(IDLE_CONNECTION_MS);
    // With a margin: Keeper's timer and nginx's are apart by a request's round trip and a loaded event loop.
    expect(IDLE_CONNECTION_MS - millis(timeout!)).toBeGreaterThanOrEqual(500);
  });
});

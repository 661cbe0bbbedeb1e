/**
 * The first route's JavaScript stays within its budget (scripts/lib/bundle/firstRoute.ts), and the
 * web build warns of nothing: a warning such as IMPORT_IS_UNDEFINED has meant an API the types
 * promise and the runtime lacks (issue 35). Bytes are deterministic for a given source and lock
 * file, so this is a check, not a timing; bench/bundle.ts gives the breakdown when it fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { buildWithManifest, FIRST_ROUTE_LIMIT_BYTES, firstRouteFiles, gzipBytes } from './lib/bundle/firstRoute.js';

const out = mkdtempSync(join(tmpdir(), 'keeper-first-route-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

// A guard against a hung build, not a budget: a build is seconds, longer on a loaded machine.
it('builds without a warning, and the first route is within its budget', { timeout: 180_000 }, () => {
  const { manifest, output } = buildWithManifest(out);
  expect(output.split('\n').filter((line) => /warn|\(!\)|IMPORT_IS_UNDEFINED/i.test(line))).toEqual([]);
  const files = firstRouteFiles(manifest);
  expect(files.some((f) => f.startsWith('assets/TreeExplorer-'))).toBe(true);
  const gzip = files.reduce((sum, f) => sum + gzipBytes(out, f), 0);
  expect(gzip, `first route ${(gzip / 1024).toFixed(1)} KB gzip; npx tsx bench/bundle.ts says where it goes`).toBeLessThanOrEqual(FIRST_ROUTE_LIMIT_BYTES);
});

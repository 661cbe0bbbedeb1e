/**
 * docs/api.md lists every /api route as the route table declares it (scripts/lib/apiDoc.ts): a
 * route added, removed or given other access without the page following fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { HTTP_ROUTES } from '../shared/src/protocol/http/openapi.js';
import { BEGIN, END, routeList } from './lib/apiDoc.js';

const page = readFileSync(resolve(import.meta.dirname, '..', 'docs', 'api.md'), 'utf8');

it('docs/api.md holds the route list the route table makes (npx tsx scripts/apiDoc.ts rewrites it)', () => {
  const from = page.indexOf(BEGIN);
  const to = page.indexOf(END);
  expect(from, 'the generated section').toBeGreaterThanOrEqual(0);
  expect(page.slice(from, to + END.length)).toBe(routeList());
});

it('names every route once', () => {
  const list = routeList();
  for (const r of HTTP_ROUTES) expect(list).toContain(`\`${r.method.toUpperCase()} ${r.path}\``);
  expect(list.split('\n').filter((l) => l.startsWith('| `')).length).toBe(HTTP_ROUTES.length);
});

/** Rewrites docs/api.md's generated list of routes (scripts/lib/apiDoc.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { routeList, withRouteList } from './lib/apiDoc.js';

const page = resolve(import.meta.dirname, '..', 'docs', 'api.md');
writeFileSync(page, withRouteList(readFileSync(page, 'utf8'), routeList()));
console.log(`docs/api.md: route list rewritten`);

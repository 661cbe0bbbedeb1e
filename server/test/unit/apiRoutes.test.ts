/**
 * The route table drives the server, without ZooKeeper: the handlers registered are exactly the
 * table's entries, each at the path the table gives it; and on a Keeper whose ensemble is not
 * even reachable, identity, origin and role are judged before anything of a request is parsed
 * (a viewer's malformed body to an admin route is 403, not 400; no identity is 401; another
 * site's page is refused), while an admin's same request reaches the parsers; and a share link
 * is refused for an ensemble Keeper does not have.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, expressPathOf, urlOf, type HttpRoute } from '@keeper/shared';
import { allApiRoutes, type ApiDependencies } from '../../src/http/allApiRoutes.js';
import { startKeeper, type RunningKeeper } from '../../src/app.js';
import { call, type Who } from '../support/http.js';
import { testLogger } from '../support/logger.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The table itself (one file per area under routeTable/): the only source that spells a path under /api. */
const isTable = (name: string) => name === 'shared/src/protocol/http/routes.ts' || name.startsWith('shared/src/protocol/http/routeTable/');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('the route table', () => {
  it('is the only place in the code that spells an /api path (tests call it from outside, like scripts)', () => {
    const found: string[] = [];
    for (const dir of ['web/src', 'server/src', 'shared/src']) {
      for (const file of sources(join(repo, dir))) {
        const name = relative(repo, file);
        if (isTable(name)) continue;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            // A string or template literal starting with /api (comments may mention paths).
            if (/['"`]\/api(\/|['"`?])/.test(line)) found.push(`${name}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(found).toEqual([]);
  });
});

describe('the registered routes', () => {
  it('are the route table, each once', () => {
    // Registering touches none of its dependencies: they are only used when a request comes.
    const api = allApiRoutes({ version: 'test', startedAt: 0, socketsFor: () => 0 } as unknown as ApiDependencies);
    const table = new Set<HttpRoute>(Object.values(ROUTES));
    const missing = [...table].filter((route) => !api.registered.has(route)).map((r) => `${r.method} ${r.path}`);
    expect(missing, 'declared in the table, served by no handler').toEqual([]);
    expect(api.registered.size).toBe(table.size);
  });

  it('match the paths the table gives, with the znode path optional and slashes kept', () => {
    expect(expressPathOf(ROUTES.znode)).toBe('/api/ensembles/:name/znodes{/*path}');
    expect(expressPathOf(ROUTES.upgradeStepAction)).toBe('/api/ensembles/:name/upgrades/:id/steps/:member/:action');
    expect(urlOf(ROUTES.znode, { name: 'a b', path: '/' })).toBe('/api/ensembles/a%20b/znodes');
    expect(urlOf(ROUTES.watches, { name: 'a/b' }, { byPath: 'true', x: undefined })).toBe('/api/ensembles/a%2Fb/watches?byPath=true');
    expect(urlOf(ROUTES.znodeDelete, { name: 'x', path: '/app/c%d' }, { version: 3, recursive: undefined })).toBe(
      '/api/ensembles/x/znodes/app/c%25d?version=3',
    );
    expect(urlOf(ROUTES.upgradeStepAction, { name: 'x', id: 'u1', member: '127.0.0.1:2181', action: 'skip' })).toBe(
      '/api/ensembles/x/upgrades/u1/steps/127.0.0.1%3A2181/skip',
    );
  });
});

const ADMIN = 'admin-token-for-api-routes-0123456789';
const VIEWER = 'viewer-token-for-api-routes-0123456789';
const admin: Who = { token: ADMIN };
const viewer: Who = { token: VIEWER };

describe('who before what, on every route with a body', () => {
  let keeper: RunningKeeper;
  let stateDir: string;
  const api = (method: string, path: string, who: Who, body?: unknown, contentType?: string) =>
    call(keeper.url, method, path, who, body, { raw: typeof body === 'string', ...(contentType ? { contentType } : {}) });

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'keeper-api-routes-'));
    // Port 1: nothing listens there; every answer below is given before ZooKeeper would be asked.
    keeper = await startKeeper(
      {
        host: '127.0.0.1',
        port: 0,
        ensembles: [{ name: 'it', connectionString: '127.0.0.1:1' }],
        auth: { stateDir, adminToken: ADMIN, viewerToken: VIEWER },
      },
      { logger: testLogger, rateLimits: { api: 100_000, loginFailures: 1_000 } },
    );
  });

  afterAll(async () => {
    await keeper?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  const malformed = (route: HttpRoute) => (route.method === 'get' ? undefined : '{"path":');
  const urlFor = (route: HttpRoute) => urlOf(route, { name: 'it', path: '/x', id: 'u1', member: '1', action: 'start' });
  const writes = Object.values(ROUTES).filter((route: HttpRoute) => route.access === 'admin' || route.access === 'writer');

  it('answers a viewer 403 on every admin and writer route, even with a malformed body, before parsing it', async () => {
    expect(writes.length).toBeGreaterThanOrEqual(14);
    for (const route of writes) {
      const res = await api(route.method.toUpperCase(), urlFor(route), viewer, malformed(route), 'application/json');
      expect([res.status, res.body?.error?.code], `${route.method} ${route.path}`).toEqual([403, 'FORBIDDEN']);
    }
  });

  it('answers no identity 401 and another site 403 CSRF, whatever the body', async () => {
    for (const route of writes) {
      const anonymous = await api(route.method.toUpperCase(), urlFor(route), {}, malformed(route), 'application/json');
      expect([anonymous.status, anonymous.body?.error?.code], `${route.method} ${route.path}`).toEqual([401, 'UNAUTHENTICATED']);
      if (route.method === 'get') continue;
      const foreign = await api(route.method.toUpperCase(), urlFor(route), { ...admin, origin: 'https://evil.example' }, malformed(route), 'application/json');
      expect([foreign.status, foreign.body?.error?.code], `${route.method} ${route.path}`).toEqual([403, 'CSRF']);
    }
  });

  it("parses an admin's request: malformed JSON, a body the schema refuses, a parameter that names nothing", async () => {
    const scan = urlOf(ROUTES.lockScan, { name: 'it' });
    expect((await api('POST', scan, admin, '{"path":', 'application/json')).body.error.code).toBe('MALFORMED_JSON');
    const invalid = await api('POST', scan, admin, { path: 'no-slash' });
    expect([invalid.status, invalid.body.error.code]).toEqual([400, 'INVALID_BODY']);
    expect(invalid.body.error.message).toContain('path');
    const unknownAction = urlOf(ROUTES.upgradeAction, { name: 'it', id: 'u1', action: 'explode' });
    expect((await api('POST', unknownAction, viewer, {})).status).toBe(403);
    const notFound = await api('POST', unknownAction, admin, {});
    expect([notFound.status, notFound.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const badQuery = await api('DELETE', urlOf(ROUTES.znodeDelete, { name: 'it', path: '/x' }, { version: '0x0' }), admin);
    expect([badQuery.status, badQuery.body.error.code]).toEqual([400, 'INVALID_QUERY']);
  });

  it('refuses a share link to an ensemble that does not exist 404 UNKNOWN_ENSEMBLE, storing nothing (issue 34 item 11)', async () => {
    const create = urlOf(ROUTES.shareLinkCreate, {});
    const refused = await api('POST', create, admin, { path: '/ensembles/nope/znodes/app', expiresInMinutes: 60 });
    expect([refused.status, refused.body.error]).toEqual([404, { code: 'UNKNOWN_ENSEMBLE', message: 'no ensemble named "nope"' }]);
    // The same answer an ensemble route gives that name.
    const route = await api('GET', urlOf(ROUTES.ensemble, { name: 'nope' }), admin);
    expect([route.status, route.body.error]).toEqual([404, refused.body.error]);
    const made = await api('POST', create, admin, { path: '/ensembles/it/znodes/app', expiresInMinutes: 60 });
    expect(made.status).toBe(201);
    const list = await api('GET', urlOf(ROUTES.shareLinks, {}), admin);
    expect(list.body.links.map((l: { scope: { ensemble: string } }) => l.scope.ensemble)).toEqual(['it']);
  });

  it('answers a path under /api that is no route 404, and the public routes without identity', async () => {
    expect((await api('GET', '/api/nothing-here', viewer)).body.error.code).toBe('NOT_FOUND');
    expect((await api('GET', urlOf(ROUTES.health, {}), {})).status).toBe(200);
    expect((await api('GET', urlOf(ROUTES.signInMethods, {}), {})).status).toBe(200);
    expect((await api('GET', urlOf(ROUTES.me, {}), {})).status).toBe(401);
  });
});

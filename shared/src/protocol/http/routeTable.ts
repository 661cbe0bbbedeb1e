/**
 * Every route under /api, once, each under its key (`ROUTES.lockScan`): method, path, who may
 * call it, the schemas of its query and body, and its answers per status. The server registers
 * its handlers from these entries (server/src/http/apiRoute.ts), the web calls them with
 * `call(ROUTES.x, ...)` (web/src/lib/api.ts), and the OpenAPI document (openapi.ts) adds each
 * route's summary and error codes from routeDocs.ts. A route that is not here cannot be
 * registered or called: both sides take an entry, never a path string.
 *
 * A znode path is one parameter `{path}` that keeps its slashes (`.../znodes/app/config`); the
 * root is the route without it (`.../znodes`). Other parameters are one URL segment each.
 *
 * Outside /api, and so not here: the page sign-ins (/share/<token>, /?token=), single sign-on
 * (/auth/oidc/*), /metrics, the socket (/ws) and the web app's files. They answer HTML,
 * redirects, Prometheus text or a websocket upgrade, not this contract's JSON.
 *
 * One file per area (routeTable/): a bundler places a module in one chunk, so a view's routes and
 * their answer schemas load with that view, not with the first page (issue 35's first-route budget).
 */
export * from './routeTable/access.js';
export * from './routeTable/znodes.js';
export * from './routeTable/ensembleViews.js';
export * from './routeTable/locks.js';
export * from './routeTable/upgrades.js';
export * from './routeTable/reconfig.js';
export * from './routeTable/jobs.js';
export * from './routeTable/admin.js';

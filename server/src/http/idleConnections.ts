/**
 * How long Keeper keeps an idle HTTP connection open for the next request (Node's default, set
 * here so it is a decision). A reverse proxy that keeps connections to Keeper must give up on an
 * idle one sooner: docs/nginx/keeper.conf says 4 s, checked against this by nginxSite.test.ts.
 */
export const IDLE_CONNECTION_MS = 5_000;

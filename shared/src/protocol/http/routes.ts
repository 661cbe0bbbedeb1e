/**
 * The shape of a route of the HTTP API (the table itself is routeTable.ts, exported as ROUTES),
 * what each side derives from one: the types of its path parameters, query, body and answers,
 * its URL (the web) and its Express path (the server). Both sides take a table entry, never a
 * path string, so a route missing from the table fails to compile.
 */
import type { z } from 'zod/mini';
import type { ApiErrorCode } from './errors.js';
import { pathToUrlSegment } from '../../urlPaths.js';

/** Where the JSON API lives; everything under it is a route of the table. */
export const API_PREFIX = '/api';
/** Every route under it finds its ensemble first (an unknown name is 404 UNKNOWN_ENSEMBLE before anything is parsed). */
export const ENSEMBLE_ROUTES_PREFIX = `${API_PREFIX}/ensembles/:name`;

/** A successful answer: JSON of a schema, raw bytes, or nothing (204). */
export type RouteAnswer = { json: z.ZodMiniType } | { bytes: string } | { empty: true } | { openApi: true };

export interface HttpRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form, with the /api prefix: /api/ensembles/{name}/znodes/{path}. */
  path: `/api/${string}`;
  /**
   * public: no identity needed; signedIn: any identity (viewers too); writer: admins, and writers
   * within the subtrees `auth.grants` gives them (znode changes); admin: admins only.
   */
  access: 'public' | 'signedIn' | 'writer' | 'admin';
  /** Whether a share-link holder may call it (within its link's scope). */
  shareHolders: boolean;
  /** Path parameters that are more than text (an action's name); any other `{name}` of the path is a string. */
  params?: z.ZodMiniObject;
  query?: z.ZodMiniObject;
  body?: z.ZodMiniType;
  answers: Partial<Record<number, RouteAnswer>>;
}

/** Declares one route, keeping its literal path, method and schemas in its type. */
export function route<const R extends HttpRoute>(declaration: R): R {
  return declaration;
}

/** What any /api route may answer: the request was refused before the route saw it, or Keeper failed. */
export const COMMON_ERRORS: readonly ApiErrorCode[] = [
  'BAD_REQUEST',
  'MALFORMED_URL',
  'UNAUTHENTICATED',
  'OUT_OF_SCOPE',
  'HOST_NOT_ALLOWED',
  'RATE_LIMITED',
  'INTERNAL',
];

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
type Io = 'in' | 'out';
type Of<S, D extends Io> = S extends z.ZodMiniType ? (D extends 'in' ? z.input<S> : z.output<S>) : never;
type Declared<R extends HttpRoute, D extends Io> = R['params'] extends z.ZodMiniObject ? Of<R['params'], D> : Record<never, never>;

/** A route's path parameters: the znode `path` (slashes kept, '/' for the root), the others one segment of text each. */
export type RouteParams<R extends HttpRoute, D extends Io = 'out'> = {
  [K in ParamNames<R['path']>]: K extends keyof Declared<R, D> ? Declared<R, D>[K] : string;
};
export type RouteQuery<R extends HttpRoute, D extends Io = 'out'> = R['query'] extends z.ZodMiniType ? Of<R['query'], D> : undefined;
export type RouteBody<R extends HttpRoute, D extends Io = 'out'> = R['body'] extends z.ZodMiniType ? Of<R['body'], D> : undefined;

/** The statuses a route answers successfully with. */
export type RouteStatus<R extends HttpRoute> = Extract<keyof R['answers'], number>;
/** The JSON a route answers with at `S` (what the server sends: the schema's input; what the web reads: its output). */
export type RouteJson<R extends HttpRoute, S extends RouteStatus<R>, D extends Io> = R['answers'][S] extends { json: infer Schema }
  ? Of<Schema, D>
  : R['answers'][S] extends { empty: true }
    ? undefined
    : never;
/** Any of a route's successful answers, as the web reads it. */
export type RouteAnswerOf<R extends HttpRoute> = { [S in RouteStatus<R>]: RouteJson<R, S, 'out'> }[RouteStatus<R>];

/** A parameter's value for a URL: the znode path keeps its slashes, anything else is one segment. */
function segmentOf(name: string, value: string): string {
  return name === 'path' ? (value === '/' ? '' : pathToUrlSegment(value)) : `/${encodeURIComponent(value)}`;
}

/** The URL of a route with its parameters and query filled in (query values that are undefined are left out). */
export function urlOf(route: HttpRoute, params: Readonly<Record<string, string>>, query?: Readonly<Record<string, unknown>>): string {
  const path = route.path.replace(/\/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.method} ${route.path}: no value for {${name}}`);
    return segmentOf(name, value);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, String(value));
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

/** The route's path as Express 5 matches it: `{name}` is `:name`, the znode path an optional wildcard (absent for the root). */
export function expressPathOf(route: HttpRoute): string {
  return route.path.replace('/{path}', '{/*path}').replace(/\{(\w+)\}/g, ':$1');
}

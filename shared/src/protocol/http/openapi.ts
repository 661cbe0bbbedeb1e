/**
 * The OpenAPI 3.1 document of the HTTP API, built from the route table (routes.ts) with zod's own
 * JSON Schema output (draft 2020-12, which OpenAPI 3.1 uses), so the document cannot drift from
 * the schemas the server and the web parse with. Served at GET /api/openapi.json.
 */
import { z } from 'zod/mini';
import { CSRF_HEADER, SESSION_COOKIE } from '../access.js';
import { ZNODE_DATA_HEADERS } from './answers.js';
import { API_ERROR_STATUS, errorAnswerSchemaOf, type ApiErrorCode } from './errors.js';
import { COMMON_ERRORS, type HttpRoute, type RouteAnswer } from './routes.js';
import * as ROUTES from './routeTable.js';
import { ROUTE_DOCS, type RouteDoc, type RouteKey } from './routeDocs.js';

/** Every route of the table with its key, in the table's order. */
export const HTTP_ROUTES: readonly (HttpRoute & RouteDoc & { key: RouteKey })[] = (Object.keys(ROUTE_DOCS) as RouteKey[]).map((key) => ({
  key,
  ...ROUTES[key],
  ...ROUTE_DOCS[key],
}));

type JsonSchema = Record<string, unknown>;

/** A zod schema as a JSON Schema object to embed (the dialect is the document's, so no $schema). */
function jsonSchemaOf(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const PATH_PARAMETERS: Record<string, JsonSchema> = {
  name: { name: 'name', in: 'path', required: true, description: 'The ensemble, as configured', schema: { type: 'string' } },
  path: {
    name: 'path',
    in: 'path',
    required: true,
    description:
      'The znode path without its leading slash, slashes kept, each segment percent-encoded (app/config for /app/config). For the root, leave the segment out: .../znodes, .../data',
    schema: { type: 'string' },
  },
  id: { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
};

function parametersOf(route: HttpRoute): JsonSchema[] {
  const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map(
    (m) => PATH_PARAMETERS[m[1] ?? ''] ?? { name: m[1], in: 'path', required: true, schema: { type: 'string' } },
  );
  if (!route.query) return inPath;
  const query = jsonSchemaOf(route.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  const inQuery = Object.entries(query.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: (query.required ?? []).includes(name),
    schema,
  }));
  return [...inPath, ...inQuery];
}

function successOf(status: number, answer: RouteAnswer): JsonSchema {
  const description = status === 201 ? 'Created' : status === 202 ? 'Started (a job)' : status === 204 ? 'Done, nothing to say' : 'OK';
  if ('empty' in answer) return { description };
  if ('openApi' in answer) return { description: 'An OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } };
  if ('bytes' in answer) {
    const header = (description: string, type = 'string') => ({ description, schema: { type } });
    return {
      description: 'The stored bytes exactly',
      headers: {
        [ZNODE_DATA_HEADERS.version]: header('stat.version of these bytes: name it when writing the value back', 'integer'),
        [ZNODE_DATA_HEADERS.mzxid]: header('stat.mzxid: the transaction that last changed the value (hex)'),
        ETag: header('Changes whenever the value does (If-None-Match answers 304)'),
        'Content-Disposition': header('attachment, named after the znode'),
      },
      content: { [answer.bytes]: { schema: { type: 'string', contentMediaType: answer.bytes } } },
    };
  }
  return { description, content: { 'application/json': { schema: jsonSchemaOf(answer.json, 'output') } } };
}

/** The route's error answers by status, each listing exactly the codes sent with that status. */
function errorsOf(route: RouteDoc): Record<string, JsonSchema> {
  const codes = [...new Set<ApiErrorCode>([...COMMON_ERRORS, ...route.errors])];
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) byStatus.set(API_ERROR_STATUS[code], [...(byStatus.get(API_ERROR_STATUS[code]) ?? []), code]);
  const out: Record<string, JsonSchema> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const [first, ...rest] = list;
    if (first === undefined) continue;
    out[String(status)] = {
      description: list.join(', '),
      content: { 'application/json': { schema: jsonSchemaOf(errorAnswerSchemaOf([first, ...rest]), 'output') } },
    };
  }
  return out;
}

function operationOf(route: HttpRoute & RouteDoc): JsonSchema {
  const success = Object.fromEntries(Object.entries(route.answers).map(([status, answer]) => [status, successOf(Number(status), answer as RouteAnswer)]));
  return {
    operationId: `${route.method}${route.path
      .replace(/^\/api/, '')
      .replace(/\{(\w+)\}/g, 'By_$1')
      .replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    tags: [route.path.split('/')[2]?.replace('.json', '') ?? 'api'],
    ...(route.access === 'public' ? { security: [] } : {}),
    'x-keeper-access': route.access,
    'x-keeper-share-holders': route.shareHolders,
    parameters: parametersOf(route),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } } } } : {}),
    responses: { ...success, ...errorsOf(route) },
  };
}

export function buildOpenApiDocument(serverVersion: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of HTTP_ROUTES) paths[route.path] = { ...paths[route.path], [route.method]: operationOf(route) };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Keeper HTTP API',
      version: serverVersion,
      description: `Errors are {"error":{"code","message"}}, each code always with the same status. Writes with a session cookie carry ${CSRF_HEADER} (from GET /api/me). x-keeper-access says who may call a route; x-keeper-share-holders whether a share link's holder may (within its scope).`,
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { cookie: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'KEEPER_ADMIN_TOKEN or KEEPER_VIEWER_TOKEN' },
        cookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'From POST /api/login or a share link' },
      },
    },
    paths,
  };
}

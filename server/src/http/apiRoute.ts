/**
 * Registers the handlers of the HTTP API from the route table (shared/src/protocol/http/
 * routeTable.ts): method and path come from the entry, never from a string here, and each request
 * goes through the same steps in the same order:
 *
 *   1. who: identity, origin and share scope were checked for all of /api (app.ts), and the
 *      ensemble looked up; here the route's role (`access`): a caller who may not is answered 403
 *      (and audited, for writes) before anything of the request is parsed, and whatever of its
 *      body still arrives is dropped unread.
 *   2. what: path parameters, query and body, each parsed with the entry's schemas (404 for a
 *      parameter that names nothing, 400 INVALID_QUERY or INVALID_BODY listing every problem).
 *   3. the handler, whose answer is typed as the entry's answer schema for its status; whatever it
 *      throws is answered with its code's status (apiErrors.ts).
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { expressPathOf, type HttpRoute, type RouteBody, type RouteJson, type RouteParams, type RouteQuery, type RouteStatus } from '@keeper/shared';
import { adminRefusal, canMutate, changeRefusal, type Identity } from '../auth/identity.js';
import type { AuditRecord, Caller } from '../admin/admin.js';
import { OpError } from '../admin/opError.js';
import { sendError, sendFailure } from './apiErrors.js';
import { jsonBody, parseOr400, wildcardPath } from './jsonBody.js';
import { caller } from './requestIdentity.js';

/** What a refused write may still send after its answer before the connection is cut. */
const MAX_DISCARDED_BYTES = 1024 * 1024;

/** A handler's answer with its status, for routes that answer with more than one. */
export class Reply<R extends HttpRoute> {
  constructor(
    readonly status: RouteStatus<R>,
    readonly body: unknown,
  ) {}
}

class Sent {
  /** A brand: no JSON answer is a Sent. */
  readonly kind = 'sent';
}
/** Returned by a handler that wrote its answer itself (bytes, a cached serialization). */
export const SENT = new Sent();

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
/** The answer of a route with one status may be returned bare; any route may return reply(status, json). */
export type HandlerAnswer<R extends HttpRoute> = Reply<R> | Sent | (IsUnion<RouteStatus<R>> extends false ? RouteJson<R, RouteStatus<R>, 'in'> : never);

export interface RouteInput<R extends HttpRoute> {
  params: RouteParams<R>;
  query: RouteQuery<R>;
  body: RouteBody<R>;
  req: Request;
  res: Response;
  /** An answer at `status`, typed as the route's schema for it. */
  reply<S extends RouteStatus<R>>(status: S, body: RouteJson<R, S, 'in'>): Reply<R>;
}

export type RouteHandler<R extends HttpRoute> = (input: RouteInput<R>) => HandlerAnswer<R> | Promise<HandlerAnswer<R>>;

export interface RouteOptions {
  /** The most of a body this route reads (express.json's limit); a refused caller's body is never read. */
  bodyLimit?: string;
  /** Refusals are audited with this record (writes); without it a refusal is only answered. */
  refused?: (req: Request) => AuditRecord;
  /** Who else may call it beyond the route's `access`: a refusal sentence, or null to let the caller in. */
  allow?: (identity: Identity, req: Request) => string | null;
}

export interface ApiRouteContext {
  /** Records a refused write in the audit trail. */
  refuse(who: Caller, record: AuditRecord, refusal: string): Promise<void>;
}

/** The API's handlers, registered only through `handle`, with the routes they serve. */
export class ApiRoutes {
  readonly router = Router();
  private readonly served = new Set<HttpRoute>();

  constructor(private readonly ctx: ApiRouteContext) {}

  /** The table entries this server has handlers for. */
  get registered(): ReadonlySet<HttpRoute> {
    return this.served;
  }

  handle<R extends HttpRoute>(route: R, options: RouteOptions, handler: RouteHandler<R>): void {
    if (this.served.has(route)) throw new Error(`${route.method} ${route.path} is registered twice`);
    if (route.body && !options.bodyLimit) throw new Error(`${route.method} ${route.path} takes a body: give its bodyLimit`);
    this.served.add(route);
    const steps: RequestHandler[] = [this.gate(route, options)];
    if (route.body) steps.push(...jsonBody(options.bodyLimit ?? '16kb'));
    steps.push(run(route, handler));
    this.router[route.method](expressPathOf(route), ...steps);
  }

  /**
   * The route's role, before anything else: a refused write is answered (and audited) before its
   * parameters, query or body are looked at, so a viewer (or a writer outside its subtrees) cannot
   * make the server parse 40 MB or learn which of its inputs would have been wrong. Whatever of
   * the body still arrives is dropped unread; past 1 MiB the connection is cut. (Closing at once
   * would reset the connection under a client still uploading, which may then never see the 403.)
   */
  private gate(route: HttpRoute, options: RouteOptions): RequestHandler {
    return (req, res, next) => {
      if (route.access === 'public') return next();
      const who = caller(req, res);
      const refusal = (options.allow ?? accessRefusal(route))(who.identity, req);
      if (refusal === null) return next();
      res.once('finish', () => {
        let discarded = 0;
        req.on('data', (chunk: Buffer) => {
          discarded += chunk.length;
          if (discarded > MAX_DISCARDED_BYTES) req.socket.destroy();
        });
      });
      const audited = options.refused ? this.ctx.refuse(who, options.refused(req), refusal) : Promise.resolve();
      void audited.finally(() => sendFailure(res, new OpError('FORBIDDEN', refusal)));
    };
  }
}

/** The refusal the route's `access` gives an identity (identity itself is required for all of /api but public routes). */
function accessRefusal(route: HttpRoute): (identity: Identity, req: Request) => string | null {
  switch (route.access) {
    case 'public':
    case 'signedIn':
      return () => null;
    case 'admin':
      return (identity) => (canMutate(identity) ? null : adminRefusal(identity));
    case 'writer':
      // A znode change: admins anywhere, writers within their granted subtrees of that ensemble (segment-exact).
      return (identity, req) => changeRefusal(identity, String((req.params as Record<string, unknown>).name), wildcardPath(req.params));
  }
}

/** The route's path parameters as text: the znode path rebuilt from the wildcard's segments, the others as Express decoded them. */
function rawParams(route: HttpRoute, req: Request): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
    if (name === undefined) continue;
    raw[name] = name === 'path' ? wildcardPath(req.params) : String((req.params as Record<string, unknown>)[name] ?? '');
  }
  return raw;
}

function run<R extends HttpRoute>(route: R, handler: RouteHandler<R>): RequestHandler {
  return async (req, res) => {
    const raw = rawParams(route, req);
    let params: Record<string, unknown> = raw;
    if (route.params) {
      const parsed = route.params.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const name = String(issue?.path[0] ?? 'parameter');
        return sendError(
          res,
          'NOT_FOUND',
          `no ${name} ${JSON.stringify((raw[name] ?? '').slice(0, 32))} here: ${issue?.message ?? 'not one this route takes'}`,
        );
      }
      params = { ...raw, ...parsed.data };
    }
    let query: unknown;
    if (route.query) {
      query = parseOr400(route.query, req.query, res, 'INVALID_QUERY');
      if (query === null) return;
    }
    let body: unknown;
    if (route.body) {
      body = parseOr400(route.body, req.body ?? {}, res);
      if (body === null) return;
    }
    try {
      const answer = await handler({
        params: params as RouteParams<R>,
        query: query as RouteQuery<R>,
        body: body as RouteBody<R>,
        req,
        res,
        reply: (status, json) => new Reply<R>(status, json),
      });
      if (answer === SENT) return;
      const [status, json] = answer instanceof Reply ? [Number(answer.status), answer.body] : [onlyStatus(route), answer];
      if (status === 204) res.status(204).end();
      else res.status(status).json(json);
    } catch (error) {
      sendFailure(res, error);
    }
  };
}

function onlyStatus(route: HttpRoute): number {
  const [status] = Object.keys(route.answers);
  return Number(status);
}

/** The 404 for a path under /api that is no route of the table. */
export const unknownApiRoute: RequestHandler = (_req, res) => sendError(res, 'NOT_FOUND', 'no such API route');

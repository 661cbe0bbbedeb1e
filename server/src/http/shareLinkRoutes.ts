/** Read-only share links (admins only): create, list, revoke. */
import { ROUTES, scopeForNewLink, type ShareLinkView } from '@keeper/shared';
import type { AccessControl } from '../auth/accessControl.js';
import { TooManyShareLinksError, type ShareLinkStore } from '../auth/shareLinks.js';
import type { AuditLog } from '../audit/auditLog.js';
import { actorOf } from '../auth/identity.js';
import { OpError } from '../admin/opError.js';
import { UnknownEnsembleError, type Ensembles } from '../ensemble/ensembles.js';
import type { ApiRoutes } from './apiRoute.js';
import { identityOf } from './requestIdentity.js';

export interface ShareLinkRouteContext {
  access: AccessControl;
  audit: AuditLog;
  /** The configured ensembles: a link opens a page of one of them. */
  ensembles: Pick<Ensembles, 'has'>;
  /** Open sockets bound to a link, for the list. */
  socketsFor: (linkId: string) => number;
}

export function shareLinkRoutes(api: ApiRoutes, ctx: ShareLinkRouteContext): void {
  const withSockets = (link: ShareLinkView): ShareLinkView => ({ ...link, activeSockets: ctx.socketsFor(link.id) });

  api.handle(ROUTES.shareLinkCreate, { bodyLimit: '16kb' }, async ({ body, req, res }) => {
    const scoped = scopeForNewLink(body.path, body.scope);
    if (!scoped.ok) throw new OpError('INVALID_SCOPE', scoped.message);
    // A link to an ensemble Keeper does not have would open nothing: refused as every route refuses that name, before anything is stored.
    if (!ctx.ensembles.has(scoped.scope.ensemble)) {
      const unknown = new UnknownEnsembleError(scoped.scope.ensemble);
      throw new OpError(unknown.code, unknown.message);
    }
    const identity = identityOf(res);
    const { scope: _choice, ...spec } = body;
    let created: ReturnType<ShareLinkStore['create']>;
    try {
      created = ctx.access.shareLinks.create({ ...spec, scope: scoped.scope, createdBy: identity.name });
    } catch (error) {
      if (error instanceof TooManyShareLinksError) throw new OpError('TOO_MANY_SHARE_LINKS', error.message);
      throw error;
    }
    const { link, token } = created;
    // With replicas, the link is in the home ensemble before its URL is given: any replica honours it.
    await ctx.access.shareLinks.published(link.id);
    await ctx.audit.append({
      action: 'shareLink.create',
      outcome: 'ok',
      actor: actorOf(identity),
      path: link.path,
      details: { linkId: link.id, expiresAt: link.expiresAt, scope: link.scope },
      ...(req.ip ? { remoteAddress: req.ip } : {}),
    });
    // The token is shown once, in this answer only; the server keeps its hash. Behind a trusted
    // proxy, protocol and host are the public ones (X-Forwarded-Proto / X-Forwarded-Host).
    return { ...withSockets(link), url: `${req.protocol}://${req.host || 'localhost'}/share/${token}` };
  });

  api.handle(ROUTES.shareLinks, {}, () => ({ links: ctx.access.shareLinks.list().map(withSockets) }));

  api.handle(ROUTES.shareLinkRevoke, {}, async ({ params, req, res }) => {
    const link = ctx.access.shareLinks.revoke(params.id);
    if (!link) throw new OpError('UNKNOWN_SHARE_LINK', `no share link ${JSON.stringify(params.id)}`);
    // With replicas, "revoked" is said once every replica can see it (they end its sessions on the watch).
    await ctx.access.shareLinks.published(link.id);
    await ctx.audit.append({
      action: 'shareLink.revoke',
      outcome: 'ok',
      actor: actorOf(identityOf(res)),
      path: link.path,
      details: { linkId: link.id },
      ...(req.ip ? { remoteAddress: req.ip } : {}),
    });
    return withSockets(link);
  });
}

/** Routes of the HTTP API (see ../routeTable.ts): what only admins use across ensembles: share links, the audit trail and the replicas. */
import { route } from '../routes.js';
import { createdShareLinkSchema, createShareLinkBodySchema, shareLinkSchema } from '../../access.js';
import { auditPageSchema, shareLinksAnswerSchema } from '../answers.js';
import { auditQuerySchema } from '../requests.js';
import { replicasAnswerSchema } from '../../../replicas.js';

export const shareLinkCreate = route({
  method: 'post',
  path: '/api/share-links',
  access: 'admin',
  shareHolders: false,
  body: createShareLinkBodySchema,
  answers: { 201: { json: createdShareLinkSchema } },
});

export const shareLinks = route({
  method: 'get',
  path: '/api/share-links',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: shareLinksAnswerSchema } },
});

export const shareLinkRevoke = route({
  method: 'delete',
  path: '/api/share-links/{id}',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: shareLinkSchema } },
});

export const audit = route({
  method: 'get',
  path: '/api/audit',
  access: 'admin',
  shareHolders: false,
  query: auditQuerySchema,
  answers: { 200: { json: auditPageSchema } },
});

export const replicas = route({
  method: 'get',
  path: '/api/replicas',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: replicasAnswerSchema } },
});

/** Routes of the HTTP API (see ../routeTable.ts): reading and writing znodes, their ACLs, and export and import of a subtree (the tree view). */
import { route } from '../routes.js';
import { znodeAnswerSchema } from '../../api.js';
import { createBodySchema, exportDocumentSchema, setAclBodySchema, setDataBodySchema } from '../../ops.js';
import {
  aclAnswerSchema,
  deleteAnswerSchema,
  importPreviewSchema,
  jobAnswerSchema,
  setAclAnswerSchema,
  subtreeCountSchema,
  writeAnswerSchema,
  znodeStatAnswerSchema,
} from '../answers.js';
import { childrenPageQuerySchema, deleteQuerySchema, importQuerySchema } from '../requests.js';

export const znode = route({
  method: 'get',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'signedIn',
  shareHolders: true,
  query: childrenPageQuerySchema,
  answers: { 200: { json: znodeAnswerSchema } },
});

export const znodeData = route({
  method: 'get',
  path: '/api/ensembles/{name}/data/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { bytes: 'application/octet-stream' } },
});

export const znodeStat = route({
  method: 'get',
  path: '/api/ensembles/{name}/stat/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: znodeStatAnswerSchema } },
});

export const znodeCreate = route({
  method: 'post',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'writer',
  shareHolders: false,
  body: createBodySchema,
  answers: { 201: { json: writeAnswerSchema } },
});

export const znodeSet = route({
  method: 'put',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'writer',
  shareHolders: false,
  body: setDataBodySchema,
  answers: { 200: { json: writeAnswerSchema } },
});

export const znodeDelete = route({
  method: 'delete',
  path: '/api/ensembles/{name}/znodes/{path}',
  access: 'writer',
  shareHolders: false,
  query: deleteQuerySchema,
  answers: { 200: { json: deleteAnswerSchema }, 202: { json: jobAnswerSchema } },
});

export const subtreeCount = route({
  method: 'get',
  path: '/api/ensembles/{name}/subtree/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: subtreeCountSchema } },
});

export const acl = route({
  method: 'get',
  path: '/api/ensembles/{name}/acl/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: aclAnswerSchema } },
});

export const aclSet = route({
  method: 'put',
  path: '/api/ensembles/{name}/acl/{path}',
  access: 'admin',
  shareHolders: false,
  body: setAclBodySchema,
  answers: { 200: { json: setAclAnswerSchema } },
});

export const exportSubtree = route({
  method: 'get',
  path: '/api/ensembles/{name}/export/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: exportDocumentSchema } },
});

export const importSubtree = route({
  method: 'post',
  path: '/api/ensembles/{name}/import/{path}',
  access: 'writer',
  shareHolders: false,
  query: importQuerySchema,
  body: exportDocumentSchema,
  answers: { 200: { json: importPreviewSchema }, 202: { json: jobAnswerSchema } },
});

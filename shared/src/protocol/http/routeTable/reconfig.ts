/** Routes of the HTTP API (see ../routeTable.ts): resizes (dynamic reconfiguration). */
import { z } from 'zod/mini';
import { route } from '../routes.js';
import {
  reconfigActionBodySchema,
  reconfigActionSchema,
  reconfigCreateBodySchema,
  reconfigListAnswerSchema,
  reconfigWorkflowSchema,
} from '../../../reconfig/workflow.js';

export const reconfigs = route({
  method: 'get',
  path: '/api/ensembles/{name}/reconfig',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: reconfigListAnswerSchema } },
});

export const reconfigCreate = route({
  method: 'post',
  path: '/api/ensembles/{name}/reconfig',
  access: 'admin',
  shareHolders: false,
  body: reconfigCreateBodySchema,
  answers: { 201: { json: reconfigWorkflowSchema } },
});

export const reconfig = route({
  method: 'get',
  path: '/api/ensembles/{name}/reconfig/{id}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: reconfigWorkflowSchema } },
});

export const reconfigAction = route({
  method: 'post',
  path: '/api/ensembles/{name}/reconfig/{id}/{action}',
  access: 'admin',
  shareHolders: false,
  params: z.object({ action: reconfigActionSchema }),
  body: reconfigActionBodySchema,
  answers: { 200: { json: reconfigWorkflowSchema } },
});

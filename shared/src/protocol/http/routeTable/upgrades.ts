/** Routes of the HTTP API (see ../routeTable.ts): guided rolling upgrades. */
import { z } from 'zod/mini';
import { route } from '../routes.js';
import {
  upgradeActionBodySchema,
  upgradeActionSchema,
  upgradeAnswerSchema,
  upgradeCreateBodySchema,
  upgradeListAnswerSchema,
  upgradeStepActionBodySchema,
  upgradeStepActionSchema,
} from '../../../upgrades/requests.js';

export const upgrades = route({
  method: 'get',
  path: '/api/ensembles/{name}/upgrades',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: upgradeListAnswerSchema } },
});

export const upgradeCreate = route({
  method: 'post',
  path: '/api/ensembles/{name}/upgrades',
  access: 'admin',
  shareHolders: false,
  body: upgradeCreateBodySchema,
  answers: { 201: { json: upgradeAnswerSchema } },
});

export const upgrade = route({
  method: 'get',
  path: '/api/ensembles/{name}/upgrades/{id}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: upgradeAnswerSchema } },
});

export const upgradeAction = route({
  method: 'post',
  path: '/api/ensembles/{name}/upgrades/{id}/{action}',
  access: 'admin',
  shareHolders: false,
  params: z.object({ action: upgradeActionSchema }),
  body: upgradeActionBodySchema,
  answers: { 200: { json: upgradeAnswerSchema } },
});

export const upgradeStepAction = route({
  method: 'post',
  path: '/api/ensembles/{name}/upgrades/{id}/steps/{member}/{action}',
  access: 'admin',
  shareHolders: false,
  params: z.object({ action: upgradeStepActionSchema }),
  body: upgradeStepActionBodySchema,
  answers: { 200: { json: upgradeAnswerSchema } },
});

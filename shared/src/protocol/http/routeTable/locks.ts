/** Routes of the HTTP API (see ../routeTable.ts): the Locks view: lock directories, scans and the clean-up of a lock's leaked znodes. */
import { route } from '../routes.js';
import { jobAnswerSchema } from '../answers.js';
import {
  lockCleanAnswerSchema,
  lockCleanBodySchema,
  lockDeleteAnswerSchema,
  lockDeleteBodySchema,
  lockScanBodySchema,
  locksQuerySchema,
} from '../../../locks/requests.js';
import { lockAnswerSchema, locksAnswerSchema } from '../../../locks/schemas.js';
import { lockScanCancelAnswerSchema, lockScanCancelBodySchema, lockScansAnswerSchema } from '../../../locks/scanRecord.js';

export const locks = route({
  method: 'get',
  path: '/api/ensembles/{name}/locks',
  access: 'signedIn',
  shareHolders: true,
  query: locksQuerySchema,
  answers: { 200: { json: locksAnswerSchema } },
});

export const lock = route({
  method: 'get',
  path: '/api/ensembles/{name}/locks/{path}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: lockAnswerSchema } },
});

export const lockScan = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/scan',
  access: 'admin',
  shareHolders: false,
  body: lockScanBodySchema,
  answers: { 202: { json: jobAnswerSchema } },
});

/** Admin: stops a running scan from any replica (the replica running it is asked through its record). */
export const lockScanCancel = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/scan/cancel',
  access: 'admin',
  shareHolders: false,
  body: lockScanCancelBodySchema,
  answers: { 200: { json: lockScanCancelAnswerSchema }, 202: { json: lockScanCancelAnswerSchema } },
});

export const lockScans = route({
  method: 'get',
  path: '/api/ensembles/{name}/lock-scans',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { json: lockScansAnswerSchema } },
});

export const lockDelete = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/delete',
  access: 'admin',
  shareHolders: false,
  body: lockDeleteBodySchema,
  answers: { 200: { json: lockDeleteAnswerSchema } },
});

export const lockClean = route({
  method: 'post',
  path: '/api/ensembles/{name}/locks/clean',
  access: 'admin',
  shareHolders: false,
  body: lockCleanBodySchema,
  answers: { 200: { json: lockCleanAnswerSchema } },
});

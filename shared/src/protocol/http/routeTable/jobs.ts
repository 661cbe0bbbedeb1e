/** Routes of the HTTP API (see ../routeTable.ts): long operations (recursive delete, import) as jobs: their progress and their cancel. */
import { route } from '../routes.js';
import { jobAnswerSchema, jobsAnswerSchema } from '../answers.js';

export const jobs = route({
  method: 'get',
  path: '/api/jobs',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { json: jobsAnswerSchema } },
});

export const job = route({
  method: 'get',
  path: '/api/jobs/{id}',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { json: jobAnswerSchema } },
});

export const jobCancel = route({
  method: 'delete',
  path: '/api/jobs/{id}',
  access: 'admin',
  shareHolders: false,
  answers: { 200: { json: jobAnswerSchema } },
});

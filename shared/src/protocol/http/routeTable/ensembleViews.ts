/** Routes of the HTTP API (see ../routeTable.ts): the ensemble's members, sessions, watches, events and sizing (the ensemble views). */
import { route } from '../routes.js';
import { membersAnswerSchema, sessionsAnswerSchema, sizingAnswerSchema, watchesAnswerSchema } from '../../../ensemble/types.js';
import { ensembleEventsAnswerSchema } from '../../../ensemble/events/schema.js';
import { sessionsQuerySchema, sizingQuerySchema, watchesQuerySchema } from '../requests.js';

export const members = route({
  method: 'get',
  path: '/api/ensembles/{name}/members',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: membersAnswerSchema } },
});

export const sessions = route({
  method: 'get',
  path: '/api/ensembles/{name}/sessions',
  access: 'signedIn',
  shareHolders: true,
  query: sessionsQuerySchema,
  answers: { 200: { json: sessionsAnswerSchema } },
});

export const watches = route({
  method: 'get',
  path: '/api/ensembles/{name}/watches',
  access: 'signedIn',
  shareHolders: true,
  query: watchesQuerySchema,
  answers: { 200: { json: watchesAnswerSchema } },
});

export const ensembleEvents = route({
  method: 'get',
  path: '/api/ensembles/{name}/events',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: ensembleEventsAnswerSchema } },
});

export const sizing = route({
  method: 'get',
  path: '/api/ensembles/{name}/sizing',
  access: 'signedIn',
  shareHolders: true,
  query: sizingQuerySchema,
  answers: { 200: { json: sizingAnswerSchema } },
});

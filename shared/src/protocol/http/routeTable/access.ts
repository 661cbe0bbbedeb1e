/** Routes of the HTTP API (see ../routeTable.ts): signing in, who the caller is, and the ensembles it may see: what every page needs first. */
import { route } from '../routes.js';
import { ensemblesAnswerSchema, healthSchema } from '../../api.js';
import { loginBodySchema, meAnswerSchema, signInMethodsSchema } from '../../access.js';
import { ensembleSummarySchema } from '../../schemas.js';

export const health = route({
  method: 'get',
  path: '/api/health',
  access: 'public',
  shareHolders: true,
  answers: { 200: { json: healthSchema } },
});

export const signInMethods = route({
  method: 'get',
  path: '/api/sign-in-methods',
  access: 'public',
  shareHolders: true,
  answers: { 200: { json: signInMethodsSchema } },
});

export const login = route({
  method: 'post',
  path: '/api/login',
  access: 'public',
  shareHolders: true,
  body: loginBodySchema,
  answers: { 200: { json: meAnswerSchema } },
});

export const logout = route({
  method: 'post',
  path: '/api/logout',
  access: 'signedIn',
  shareHolders: true,
  answers: { 204: { empty: true } },
});

export const me = route({
  method: 'get',
  path: '/api/me',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: meAnswerSchema } },
});

export const openApi = route({
  method: 'get',
  path: '/api/openapi.json',
  access: 'signedIn',
  shareHolders: false,
  answers: { 200: { openApi: true } },
});

export const ensembles = route({
  method: 'get',
  path: '/api/ensembles',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: ensemblesAnswerSchema } },
});

export const ensemble = route({
  method: 'get',
  path: '/api/ensembles/{name}',
  access: 'signedIn',
  shareHolders: true,
  answers: { 200: { json: ensembleSummarySchema } },
});

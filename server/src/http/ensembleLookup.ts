/**
 * Every route under /api/ensembles/:name finds its ensemble here, once: an unknown name gets
 * 404 UNKNOWN_ENSEMBLE with Ensembles' one sentence, before any route parses its input.
 * Routes read the result with `ensembleOf(res)`.
 */
import type { RequestHandler, Response } from 'express';
import type { Ensemble } from '../ensemble/ensemble.js';
import { UnknownEnsembleError, type Ensembles } from '../ensemble/ensembles.js';
import { sendError } from './apiErrors.js';

export function ensembleLookup(ensembles: Ensembles): RequestHandler {
  return (req, res, next) => {
    const name = (req.params as { name?: string }).name ?? '';
    const ensemble = ensembles.find(name);
    if (!ensemble) {
      const error = new UnknownEnsembleError(name);
      return sendError(res, error.code, error.message);
    }
    res.locals.ensemble = ensemble;
    next();
  };
}

/** The ensemble ensembleLookup found for this request. */
export function ensembleOf(res: Response): Ensemble {
  const ensemble = res.locals.ensemble as Ensemble | undefined;
  if (!ensemble) throw new Error('ensembleOf used on a route not mounted behind ensembleLookup');
  return ensemble;
}

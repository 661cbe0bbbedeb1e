/**
 * Every configured ensemble by name, and the one answer for a name that is not one of them:
 * `get` throws UnknownEnsembleError, which the HTTP layer turns into 404 UNKNOWN_ENSEMBLE and
 * the socket into an `unknownEnsemble` error, with the same sentence.
 */
import type { Logger } from 'pino';
import type { EnsembleConfig } from '../config/types.js';
import type { Admin } from '../admin/admin.js';
import { Ensemble } from './ensemble.js';
import type { GatewayDefaults } from '../config/ensembleState.js';
import type { MonitorSettings } from '../members/memberMonitor.js';

export class UnknownEnsembleError extends Error {
  override readonly name = 'UnknownEnsembleError';
  readonly code = 'UNKNOWN_ENSEMBLE';
  constructor(readonly ensemble: string) {
    super(`no ensemble named ${JSON.stringify(ensemble)}`);
  }
}

export class Ensembles implements Iterable<Ensemble> {
  private readonly byName = new Map<string, Ensemble>();

  constructor(list: Iterable<Ensemble>) {
    for (const ensemble of list) {
      if (this.byName.has(ensemble.name)) throw new Error(`two ensembles are named ${JSON.stringify(ensemble.name)}`);
      this.byName.set(ensemble.name, ensemble);
    }
  }

  static fromConfig(
    configs: readonly EnsembleConfig[],
    log: Logger,
    admin: Admin,
    gatewayDefaults?: GatewayDefaults,
    monitorSettings?: MonitorSettings,
  ): Ensembles {
    const names = new Set<string>();
    for (const config of configs) {
      if (names.has(config.name)) throw new Error(`two ensembles are named ${JSON.stringify(config.name)}`);
      names.add(config.name);
    }
    return new Ensembles(configs.map((config) => new Ensemble(config, log, admin, gatewayDefaults, monitorSettings)));
  }

  /** The ensemble, or UnknownEnsembleError. */
  get(name: string): Ensemble {
    const ensemble = this.byName.get(name);
    if (!ensemble) throw new UnknownEnsembleError(name);
    return ensemble;
  }

  find(name: string): Ensemble | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  [Symbol.iterator](): Iterator<Ensemble> {
    return this.byName.values();
  }

  start(): void {
    for (const ensemble of this) ensemble.start();
  }

  close(): void {
    for (const ensemble of this) ensemble.close();
  }
}

/**
 * Keeper's Prometheus metrics: one registry per running Keeper (tests run several in a process),
 * holding Keeper's own figures (browsers, ZooKeeper requests and their latency, the console
 * sessions, watches) and what it already knows about each ensemble (ensembleMetrics.ts).
 * Everything is read at scrape time from what Keeper holds; a scrape costs ZooKeeper nothing.
 */
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Ensembles } from '../ensemble/ensembles.js';
import { registerEnsembleMetrics } from './ensembleMetrics.js';
import { ZkCallMetrics } from './zkCallMetrics.js';

export interface HubFigures {
  readonly browserCount: number;
}

export class KeeperMetrics {
  readonly registry = new Registry();
  private readonly zkCalls: ZkCallMetrics;

  constructor(ensembles: Ensembles, hub: HubFigures) {
    collectDefaultMetrics({ register: this.registry, prefix: 'keeper_' });
    this.zkCalls = new ZkCallMetrics(this.registry);
    for (const ensemble of ensembles) {
      ensemble.gateway.on('call', (op, outcome, seconds) => this.zkCalls.record(ensemble.name, op, outcome, seconds));
    }
    new Gauge({
      name: 'keeper_browsers_connected',
      help: 'Browser sockets open now (tabs, share links included).',
      registers: [this.registry],
      collect() {
        this.set(hub.browserCount);
      },
    });
    registerEnsembleMetrics(this.registry, () => ensembles);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

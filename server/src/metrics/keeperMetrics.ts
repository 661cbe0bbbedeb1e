/**
 * Keeper's Prometheus metrics: one registry per running Keeper (tests run several in a process),
 * holding Keeper's own figures (browsers, ZooKeeper requests and their latency, the console
 * sessions, watches) and what it already knows about each ensemble (ensembleMetrics.ts).
 * Everything is read at scrape time from what Keeper holds; a scrape costs ZooKeeper nothing.
 */
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Ensembles } from '../ensemble/ensembles.js';
import { registerEnsembleMetrics } from './ensembleMetrics.js';
import { ZkCallMetrics } from './zkCallMetrics.js';

export interface HubFigures {
  readonly browserCount: number;
  subscriptionsByEnsemble(): ReadonlyMap<string, number>;
  onPush(listener: (seconds: number) => void): void;
}

/** A push is a flush away (batchIntervalMs, 50 ms by default) unless a socket is slow. */
const PUSH_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

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
    new Gauge({
      name: 'keeper_subscriptions',
      help: "Topic subscriptions of the browsers' sockets, by ensemble (one ZooKeeper watch serves them all).",
      labelNames: ['ensemble'],
      registers: [this.registry],
      collect() {
        const counts = hub.subscriptionsByEnsemble();
        for (const ensemble of ensembles) this.set({ ensemble: ensemble.name }, counts.get(ensemble.name) ?? 0);
      },
    });
    const push = new Histogram({
      name: 'keeper_push_seconds',
      help: "Time from a topic's live event in Keeper (a watch answered and read) to its frame handed to a browser's socket, per socket.",
      buckets: PUSH_BUCKETS,
      registers: [this.registry],
    });
    hub.onPush((seconds) => push.observe(seconds));
    registerEnsembleMetrics(this.registry, () => ensembles);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

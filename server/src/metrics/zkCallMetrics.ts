/**
 * Every request Keeper sends to ZooKeeper, counted and timed per ensemble, op and outcome, from
 * the gateway's `call` events. Labels are bounded by design: ops come from Keeper's own code, and
 * an outcome is `ok`, a ZooKeeper error name or one of the gateway's own failures (anything else,
 * say a future server's new code, is `other`).
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { ZK_ERROR_NAMES } from '../zk/errors.js';

const GATEWAY_OUTCOMES = ['ok', 'DEADLINE_EXCEEDED', 'OVERLOADED', 'CLOSED', 'INVALID_PATH', 'NOT_CONNECTED'];
const KNOWN_OUTCOMES = new Set([...GATEWAY_OUTCOMES, ...Object.values(ZK_ERROR_NAMES)]);

/** ZooKeeper answers on loopback in ~0.3 ms and a slow ensemble in seconds; the deadline is 10 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function boundedOutcome(outcome: string): string {
  return KNOWN_OUTCOMES.has(outcome) ? outcome : 'other';
}

export class ZkCallMetrics {
  private readonly requests: Counter<'ensemble' | 'op' | 'result'>;
  private readonly seconds: Histogram<'ensemble' | 'op'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'keeper_zk_requests_total',
      help: 'Requests Keeper sent to ZooKeeper (each try of a retried read counts; liveness probes do not), by outcome.',
      labelNames: ['ensemble', 'op', 'result'],
      registers: [registry],
    });
    this.seconds = new Histogram({
      name: 'keeper_zk_request_seconds',
      help: "Time from sending a request to ZooKeeper's answer (or the deadline).",
      labelNames: ['ensemble', 'op'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
  }

  record(ensemble: string, op: string, outcome: string, seconds: number): void {
    this.requests.inc({ ensemble, op, result: boundedOutcome(outcome) });
    this.seconds.observe({ ensemble, op }, seconds);
  }
}

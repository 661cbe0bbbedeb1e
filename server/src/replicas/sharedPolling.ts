/**
 * `"replicas": {"sharedPolling": true}` (docs/operating/replicas.md): one elected replica polls every
 * watched ensemble's members (4lw/AdminServer rounds, sessions and watches gatherings) and
 * publishes what it finds in the home ensemble; the others show it. N replicas then cost each
 * ensemble the 4lw load of one.
 *
 * This part decides each ensemble's mode (polledEnsemble.ts) from three facts:
 *  - the election (pollingElection.ts): this replica leads or not;
 *  - the home ensemble: a state session not connected for `fallbackAfterMs` (its session timeout
 *    by default; by then a leader's candidate would have expired too) makes every replica poll on
 *    its own until it is back, rather than show results that stopped moving;
 *  - the ensemble's identity (`/keeper/ensemble-id`), which the results are keyed by: unknown
 *    after IDENTITY_WAIT_MS (an ensemble down when Keeper starts), the ensemble is polled locally
 *    until it is known. Two configured names of one
 *    ensemble (one identity): the first shares, the others poll on their own.
 */
import type { Logger } from 'pino';
import { PollingElection } from './pollingElection.js';
import { PolledEnsemble, type PollingMode, type PollingTarget } from './polledEnsemble.js';
import type { ReplicaStore } from './replicaStore.js';

export interface SharedPollingOptions {
  store: ReplicaStore;
  self: { id: string; name: string };
  ensembles: Iterable<PollingTarget>;
  log: Logger;
  /** The home ensemble away this long: each replica polls on its own (default: the state session's timeout). */
  fallbackAfterMs: number;
  /** A published round this late past its expected refresh is said to be late (default LATE_GRACE_MS). */
  lateGraceMs?: number;
  askDeadlineMs?: number;
}

/** Within 3 s of a missed refresh a follower says "as of" (the truth rule); 2 s leaves room for its timer and the browser. */
export const LATE_GRACE_MS = 2_000;
/** An ensemble's identity is read in milliseconds when it serves; one that does not is polled here rather than shown as nothing. */
const IDENTITY_WAIT_MS = 5_000;

export class SharedPolling {
  readonly election: PollingElection;
  private readonly shares: PolledEnsemble[];
  private homeAway = false;
  private awayTimer: NodeJS.Timeout | null = null;
  private identityWaitOver = false;
  private identityTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly onSession = () => this.watchHome();

  constructor(private readonly options: SharedPollingOptions) {
    this.election = new PollingElection(options.store, options.self, options.log);
    this.shares = [...options.ensembles].map(
      (target) =>
        new PolledEnsemble(target, {
          store: options.store,
          self: options.self,
          log: options.log,
          term: () => this.election.term,
          superseded: () => this.election.evaluate(),
          lateGraceMs: options.lateGraceMs ?? LATE_GRACE_MS,
          ...(options.askDeadlineMs !== undefined ? { askDeadlineMs: options.askDeadlineMs } : {}),
        }),
    );
  }

  /** Each ensemble's mode, by name (GET /api/replicas and tests). */
  modes(): Record<string, PollingMode> {
    return Object.fromEntries(this.shares.map((s) => [s.name, s.mode]));
  }

  start(): void {
    this.election.on('change', () => this.decide());
    this.options.store.gateway.on('session', this.onSession);
    this.election.start();
    this.watchHome();
    this.identityTimer = setTimeout(
      () => {
        this.identityWaitOver = true;
        this.decide();
      },
      Math.min(IDENTITY_WAIT_MS, this.options.fallbackAfterMs),
    );
    this.identityTimer.unref();
    for (const share of this.shares)
      share.target.identity
        .whenKnown()
        .then(() => this.decide())
        .catch(() => undefined);
    this.decide();
  }

  close(): void {
    this.closed = true;
    this.options.store.gateway.off('session', this.onSession);
    if (this.awayTimer) clearTimeout(this.awayTimer);
    if (this.identityTimer) clearTimeout(this.identityTimer);
    this.election.close();
    for (const share of this.shares) share.close();
  }

  /** The home ensemble counts as away once the state session has not been connected for `fallbackAfterMs`. */
  private watchHome(): void {
    if (this.closed) return;
    const connected = this.options.store.gateway.session.state === 'connected';
    if (connected) {
      if (this.awayTimer) clearTimeout(this.awayTimer);
      this.awayTimer = null;
      if (this.homeAway) {
        this.homeAway = false;
        this.options.log.info('sharedPolling: the home ensemble is back; the election decides who polls again');
        this.decide();
      }
      return;
    }
    if (this.awayTimer || this.homeAway) return;
    this.awayTimer = setTimeout(() => {
      this.awayTimer = null;
      this.homeAway = true;
      this.options.log.warn(
        { afterMs: this.options.fallbackAfterMs },
        'sharedPolling: the home ensemble is away; this replica polls on its own until it is back',
      );
      this.decide();
    }, this.options.fallbackAfterMs);
    this.awayTimer.unref();
  }

  private decide(): void {
    if (this.closed) return;
    const keyed = new Set<string>();
    for (const share of this.shares) {
      const id = share.target.identity.current();
      if (id === null) {
        share.setMode(this.homeAway || this.identityWaitOver ? 'local' : 'waiting', null);
        continue;
      }
      if (this.homeAway || keyed.has(id)) {
        share.setMode('local', null);
        continue;
      }
      keyed.add(id);
      // Before the election's first verdict a replica follows: what is published is shown (late if it is old).
      share.setMode(this.election.leading ? 'lead' : 'follow', id);
    }
  }
}

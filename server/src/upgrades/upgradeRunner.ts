/**
 * One ensemble's upgrade (issue 13): owns the workflow, feeds the shared reducer each poll's
 * EnsembleHealth and a clock tick, and carries out its side effects: the restarts (write-ahead:
 * `restartStarted` is on disk before anything runs, the command's process right after it starts),
 * the lock in ZooKeeper, the state file (keyed by the ensemble's identity), the audit trail and
 * the `upgrade` topic. The rules themselves (gates, order, timeouts, resuming, the re-check before
 * done) live in shared/src/upgrades; this class only decides when to tell them what happened.
 * Answers to non-admins go through withheldCommands: the restart command and its output stay here.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  backoffDelay,
  createWorkflow,
  handoverSentence,
  isFinished,
  isTerminal,
  membersMismatch,
  normalizeSessionId,
  planUpgrade,
  recordHandover,
  resumeFrom,
  stepsToRestart,
  summarizeUpgrade,
  upgradeAlert,
  upgradeProgress,
  withheldCommands,
  workflowEventError,
  workflowReducer,
  type Alert,
  type Role,
  type EnsembleHealth,
  type UpgradeAction,
  type UpgradeActionBody,
  type UpgradeAnswer,
  type UpgradeCreateBody,
  type UpgradeStep,
  type UpgradeStepAction,
  type UpgradeSummary,
  type UpgradeTimings,
  type UpgradeWorkflow,
  type WorkflowEvent,
} from '@keeper/shared';
import type { AuditInput } from '../audit/auditLog.js';
import type { EnsembleConfig } from '../config/types.js';
import { OpError, toOpError } from '../admin/opError.js';
import type { EnsembleIdentityReader } from '../config/ensembleState.js';
import type { ZkGateway } from '../zk/gateway.js';
import type { ZkMutations } from '../zk/mutations.js';
import { isStillRunning, killProcessGroup } from './commandProcess.js';
import { commandRestarter, manualRestarter, sandboxRestarter, type Restarter, type SandboxRestart } from './restarter.js';
import { handoverEntry, transitionEntries } from './upgradeAudit.js';
import { RunGuard } from '../workflows/runGuard.js';
import { lockTakeoverWaitMs, type HealthSource } from '../workflows/ownership.js';
import { WorkflowLock, type LockAttempt } from '../workflows/workflowLock.js';
import { migrateNameKeyed, UPGRADE_ID, UpgradeStore, upgradesDir } from './upgradeStore.js';
import type { SharedWorkflows, StoredWorkflow } from '../workflows/sharedWorkflows.js';
import { storedWithin, WorkflowWriter } from '../workflows/workflowWriter.js';

/** How long an action's answer waits for its state to be stored in the home ensemble (the store's own deadline). */
const STORED_ANSWER_WAIT_MS = 10_000;

/** The members' cadence while a member is being restarted: each phase seen within about a second. */
export const BRISK_POLL_MS = 1_000;

/** Brisk while it runs, or while paused with a member somewhere between its restart and its end. */
function wantsBrisk(wf: UpgradeWorkflow | null): boolean {
  if (!wf) return false;
  if (wf.state === 'running') return true;
  return wf.state === 'paused' && wf.steps.some((s) => s.restartRequestedAt !== null && !isTerminal(s));
}

export interface UpgradeSettings {
  /** Where workflows are written; null keeps them in memory (the open development mode). */
  stateDir: string | null;
  /** The sandbox's own restarter (npm start, tests). */
  restartMember?: SandboxRestart;
  audit?: (entry: AuditInput) => Promise<unknown>;
  /** Overrides for every new workflow's timings (tests settle in 1 s). */
  timings?: Partial<UpgradeTimings>;
  /** How often deadlines are checked between polls (default 1 s). */
  tickMs?: number;
  /** How long a resumed upgrade waits for its previous process's lock (default: twice the session timeout plus 5 s). */
  lockTakeoverMs?: number;
  /** With replicas: workflows kept in the home ensemble, run by one replica at a time (sharedWorkflows.ts). */
  shared?: SharedWorkflows;
}

/** Between looks at a predecessor's lock: about a second, jittered so two waiting processes do not align. */
const LOCK_RETRY = { baseMs: 1_000, capMs: 2_000, jitter: [0.5, 1.5] } as const;
/** Between attempts to reach the home ensemble for a hand-over: jittered, so the replicas do not call together. */
const SHARED_RETRY = { baseMs: 500, capMs: 5_000, jitter: [0.5, 1.5] } as const;

/** A person waits longer than a command: a manual restart gets this long to be seen. */
const MANUAL_WENT_DOWN_WITHIN_MS = 30 * 60_000;

/**
 * A new workflow's timings: the defaults, a longer wait for a person restarting by hand, the
 * ensemble's configured settle time, then what startKeeper was given (tests).
 */
export function workflowTimings(
  method: Restarter['method'],
  config: Pick<EnsembleConfig, 'upgradeSettleSeconds'>,
  overrides: Partial<UpgradeTimings> = {},
): Partial<UpgradeTimings> {
  return {
    ...(method === 'manual' ? { wentDownWithinMs: MANUAL_WENT_DOWN_WITHIN_MS } : {}),
    ...(config.upgradeSettleSeconds !== undefined ? { settleMs: config.upgradeSettleSeconds * 1000 } : {}),
    ...overrides,
  };
}

const finished = isFinished;

/** What must be on disk: the states, phases and outcomes, not every poll's fresh `at` and numbers. */
function signature(wf: UpgradeWorkflow): string {
  return JSON.stringify([
    wf.state,
    wf.reason,
    wf.confirmedBy,
    wf.preflight.map((c) => [c.id, c.ok]),
    wf.steps.map((s) => [
      s.state,
      s.pausedFrom,
      s.reason,
      s.phases,
      s.deadlineAt,
      s.settleUntil,
      s.evidence,
      s.restartRequestedAt,
      s.command,
      s.checks.map((c) => [c.id, c.ok]),
    ]),
    wf.keeperSession,
    wf.sessionExpiries.keeper,
    wf.recheck?.at ?? null,
    wf.runBy,
    wf.handovers.length,
  ]);
}

const sameContent = (a: UpgradeWorkflow, b: UpgradeWorkflow) => JSON.stringify({ ...a, updatedAt: 0 }) === JSON.stringify({ ...b, updatedAt: 0 });

export class UpgradeRunner {
  private settings: UpgradeSettings = { stateDir: null };
  private store: UpgradeStore | null = null;
  private restarter: Restarter = manualRestarter;
  private readonly lock: WorkflowLock;
  private readonly guard: RunGuard;
  /** The ensemble's latest workflow: in progress, or the last one finished. */
  private wf: UpgradeWorkflow | null = null;
  /** The state was read (it waits for the ensemble's identity when kept on disk): until then nothing is said about upgrades. */
  private loaded = false;
  /** Loaded mid-upgrade from disk: resumeFrom runs on the first poll, before anything else. */
  private needsResume = false;
  /** Why the loaded workflow is not resumed (its plan names other members); polls leave it alone until a resume passes the check. */
  private refusedResume: string | null = null;
  /** The session of the previous Keeper process that held this upgrade's lock, until it is seen to end (it was killed: it expires). */
  private previousSession: string | null = null;
  /** The step whose restart command was inherited from a killed Keeper, and the timer that ends it at its deadline. */
  private readonly inheritedCommands = new Map<string, NodeJS.Timeout>();
  private watchingPrevious = false;
  private creating = false;
  private readonly inFlight = new Set<string>();
  private readonly listeners = new Set<(wf: UpgradeWorkflow | null) => void>();
  private stops: (() => void)[] = [];
  /** After close, a restart still finishing must not write over what the next Keeper process resumes from. */
  private closed = false;
  /** What else holds the ensemble (a resize): an upgrade is refused while it is in progress. */
  private otherWorkflow: () => string | null = () => null;
  /** With replicas: where the workflows are kept, and whether this replica runs the current one (a follower mirrors it). */
  private shared: SharedWorkflows | null = null;
  private owner = true;
  /** ZooKeeper's time this replica took the ownership (its owner znode's ctime). */
  private ownedSince = 0;
  private writer: WorkflowWriter | null = null;
  /** The latest state's save: a restart runs only once its request is stored. */
  private lastSave: Promise<boolean> = Promise.resolve(true);
  /** The audit entries of the last stored change (a restart's is awaited before its command runs). */
  private lastAudit: Promise<unknown> = Promise.resolve();
  /** The next commit is stored whatever changed (a hand-over's record). */
  private mustStore = false;
  /** Another replica's change seen while this one's write was under way: read again after it. */
  private foreignSeen = false;
  private opening: Promise<void> | null = null;
  private takingOver = false;
  private reconciling: Promise<void> | null = null;
  /** After a hand-over: the resume's sentences start with it ("replica b:8080 took over") rather than "Keeper restarted". */
  private resumeCause: string | null = null;

  constructor(
    private readonly config: EnsembleConfig,
    private readonly health: HealthSource,
    private readonly gateway: ZkGateway,
    mutations: ZkMutations,
    private readonly identity: EnsembleIdentityReader,
    private readonly log: Logger,
  ) {
    this.lock = new WorkflowLock(gateway, mutations, config.name);
    this.guard = new RunGuard({
      ensemble: config.name,
      kept: 'upgrades',
      isLoaded: () => this.loaded,
      identity,
      health,
      lock: this.lock,
      lockHeld: (holder) => `another Keeper process runs an upgrade of this ensemble: ${holder}`,
    });
  }

  /** Called once before start(): what startKeeper knows (state dir, sandbox, audit). */
  configure(settings: UpgradeSettings): void {
    this.settings = settings;
    this.shared = settings.shared ?? null;
    this.owner = this.shared === null;
    const { restartCommand, restartCommandTimeoutSeconds } = this.config;
    this.restarter = restartCommand
      ? commandRestarter(restartCommand, restartCommandTimeoutSeconds)
      : settings.restartMember
        ? sandboxRestarter(this.config.name, settings.restartMember)
        : manualRestarter;
  }

  /** The resize runner's "in progress" sentence, or null: the two never run together in this process. */
  blockWhile(other: () => string | null): void {
    this.otherWorkflow = other;
  }

  get method(): Restarter['method'] {
    return this.restarter.method;
  }

  start(): void {
    // Kept in memory only: nothing to wait for. On disk: the files are the ensemble identity's, read once it is known.
    if (this.settings.stateDir === null && this.shared === null) this.load(new UpgradeStore(null, this.log));
    else void this.identity.whenKnown().catch(() => undefined);
    this.stops.push(this.health.subscribe((h) => this.onHealth(h)));
    // A workflow not resumed (its plan names other members) is left as it is: no deadline moves it either.
    const timer = setInterval(() => this.refusedResume === null && this.apply({ type: 'tick', at: Date.now() }), this.settings.tickMs ?? 1_000);
    timer.unref();
    this.stops.push(() => clearInterval(timer));
  }

  close(): void {
    this.health.setBrisk?.(null);
    this.closed = true;
    for (const timer of this.inheritedCommands.values()) clearTimeout(timer);
    for (const stop of this.stops.splice(0)) stop();
    this.listeners.clear();
    this.shared?.close();
  }

  // ---- reading ----

  /** False until the state is read: until then the topic says nothing and the routes answer NOT_READY. */
  get ready(): boolean {
    return this.loaded;
  }

  current(): UpgradeWorkflow | null {
    return this.wf;
  }

  /** The workflow with its progress; for anyone but an admin, without the restart command, its output or its process. */
  answer(wf: UpgradeWorkflow, role: Role, now = Date.now()): UpgradeAnswer {
    const shown = role === 'admin' ? wf : withheldCommands(wf);
    return { ...shown, progress: upgradeProgress(shown, now) };
  }

  /** The history: the same lines for everyone (a reason never carries a command's output). */
  list(): UpgradeSummary[] {
    this.guard.requireReady();
    const kept = this.shared ? this.shared.list() : (this.store?.list() ?? []);
    const all = this.wf && !kept.some((w) => w.id === this.wf?.id) ? [this.wf, ...kept] : kept;
    return all.map((w) => (w.id === this.wf?.id ? this.wf : w)).map((w) => summarizeUpgrade(withheldCommands(w)));
  }

  get(id: string): UpgradeWorkflow {
    this.guard.requireReady();
    const kept = (known: string) => (this.shared ? this.shared.get(known) : (this.store?.get(known) ?? null));
    const wf = UPGRADE_ID.test(id) ? (this.wf?.id === id ? this.wf : kept(id)) : null;
    if (!wf) throw new OpError('UNKNOWN_UPGRADE', `no upgrade ${JSON.stringify(id.slice(0, 64))} of ${this.config.name}`);
    return wf;
  }

  /**
   * As get(), but an id this replica has not seen yet is read from the home ensemble first: a
   * workflow started on another replica moments ago, before this one's watch brought it (behind a
   * load balancer the next request may land here). Never "no upgrade" for one that is stored.
   */
  async find(id: string): Promise<UpgradeWorkflow> {
    this.guard.requireReady();
    if (this.shared && UPGRADE_ID.test(id) && this.wf?.id !== id && !this.shared.get(id)) await this.shared.read(id);
    return this.get(id);
  }

  /**
   * What `GET /upgrades/<id>` answers. A replica that does not run the workflow reads it from the
   * home ensemble rather than answer from the copy its watch keeps: behind a load balancer the next
   * request after a change on the running replica may land here before the watch has brought it,
   * and the copy would say an older state ("planned" after the start was answered). When the home
   * ensemble does not answer (its leader lost), the copy is what this replica knows, with its own
   * times. The replica that runs it answers from its own workflow, which it writes.
   */
  async readFresh(id: string): Promise<UpgradeWorkflow> {
    this.guard.requireReady();
    const shared = this.shared;
    if (!shared || !UPGRADE_ID.test(id)) return this.get(id);
    const held = this.wf?.id === id ? this.wf : shared.get(id);
    if (held?.runBy?.replica === shared.self.replica) return held;
    // One read serves both cases: a workflow not seen yet (find()'s) and a copy that may be behind.
    try {
      await shared.read(id);
    } catch (error) {
      if (!held) throw error;
      this.log.debug({ err: error, upgrade: id }, 'upgrades: the stored workflow could not be read; answered from the copy');
      return held;
    }
    // read() keeps the stored record only when it is newer than the one held.
    return shared.get(id) ?? this.get(id);
  }

  /** The alert a paused or failed upgrade raises (the ensemble's alerts show it, to viewers too). */
  alert(): Alert | null {
    return this.wf ? upgradeAlert(withheldCommands(this.wf)) : null;
  }

  onChange(listener: (wf: UpgradeWorkflow | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- acting (the routes audit these; they throw OpError) ----

  /** `announce`: writes the route's audit entry; called when a start follows, before it takes effect (act). */
  async create(by: string, body: UpgradeCreateBody, announce?: (wf: UpgradeWorkflow) => Promise<void>): Promise<UpgradeWorkflow> {
    this.guard.requireReady();
    this.assertNoneInProgress();
    const health = this.guard.requireHealth();
    this.creating = true;
    try {
      const id = randomUUID();
      // With replicas, the replica that plans it runs it: it takes the ownership first (one upgrade per ensemble across replicas).
      const runBy = this.shared ? await this.claimForNew(id) : null;
      try {
        await this.guard.takeLock(id, by);
      } catch (error) {
        if (this.shared) await this.shared.release(id).catch(() => undefined);
        throw error;
      }
      const at = Date.now();
      const plan = planUpgrade({ health, mode: body.mode, targetVersion: body.targetVersion ?? null, note: body.note ?? null });
      const timings = workflowTimings(this.restarter.method, this.config, this.settings.timings);
      const created = { ...createWorkflow({ id, plan, at, by, restartMethod: this.restarter.method, timings }), runBy };
      if (this.shared) this.becomeOwner(null, runBy!.since);
      // The preflight shows at once, from the latest poll.
      this.commit(null, workflowReducer(created, { type: 'poll', at, health }));
      if (this.shared) {
        // Stored before the answer: any replica serves it from now on. Bounded as an action's answer is
        // (storedForAnswer): while the home ensemble does not answer, the writer goes on retrying.
        const stored = await storedWithin(this.lastSave, STORED_ANSWER_WAIT_MS);
        if (stored === false) throw new OpError('UPGRADE_IN_PROGRESS', `upgrade ${id} could not be stored in the home ensemble: another replica wrote first`);
        if (stored === null)
          this.log.warn({ upgrade: id }, `upgrade created and answered before it was stored in the home ensemble (${STORED_ANSWER_WAIT_MS} ms): still retried`);
        void this.shared.prune().catch((error: unknown) => this.log.warn({ err: error }, 'old upgrades not pruned from the home ensemble'));
      }
    } finally {
      this.creating = false;
    }
    if (body.start) {
      try {
        return await this.act(by, this.wf!.id, 'start', body.confirmation !== undefined ? { confirmation: body.confirmation } : {}, announce);
      } catch (error) {
        const e = toOpError(error);
        throw new OpError(e.code, `Upgrade ${this.wf!.id} is planned but did not start: ${e.message}`);
      }
    }
    return this.wf!;
  }

  /**
   * `announce` (the route's audit entry) is awaited before an action that restarts members takes
   * effect (start, resume): the trail says who started it before any restart's own entry, and a
   * replica killed as its first restart begins cannot take that entry with it.
   */
  async act(
    by: string,
    id: string,
    action: UpgradeAction,
    body: UpgradeActionBody,
    announce?: (wf: UpgradeWorkflow) => Promise<void>,
  ): Promise<UpgradeWorkflow> {
    const wf = await this.find(id);
    if (wf !== this.wf) throw new OpError('UPGRADE_REFUSED', `upgrade ${id} is ${wf.state}: only the current one can be acted on`);
    const at = Date.now();
    let event: WorkflowEvent;
    switch (action) {
      case 'start':
        event = { type: 'start', at, by, health: this.guard.requireHealth(), confirmation: body.confirmation ?? null };
        break;
      case 'pause':
        event = { type: 'pause', at, by, reason: body.reason ?? null };
        break;
      case 'resume': {
        const health = this.guard.requireHealth();
        const mismatch = membersMismatch(wf, health);
        if (mismatch !== null) throw new OpError('UPGRADE_REFUSED', mismatch);
        event = { type: 'resume', at, by, health };
        break;
      }
      case 'abort':
        event = { type: 'abort', at, by, reason: body.reason ?? null };
        break;
      default: {
        const never: never = action;
        throw new Error(`unhandled action ${String(never)}`);
      }
    }
    this.refuseIfError(wf, event);
    if (announce && (action === 'start' || action === 'resume')) {
      await announce(wf);
      // Timed after its entry: the trail never shows the start after what it started.
      event = { ...event, at: Date.now() };
    }
    // Another replica runs it: the action is stored, and that replica carries it out (it holds the lock).
    if (!this.owner) return this.actThroughStore(id, event);
    // Restarts follow start and resume: this process must hold the ensemble's upgrade lock first.
    if (action === 'start' || action === 'resume') await this.guard.takeLock(id, by);
    if (action === 'resume') this.refusedResume = null;
    this.apply(event);
    return this.storedForAnswer(id);
  }

  async stepAct(by: string, id: string, member: string, action: UpgradeStepAction, confirmation: string | undefined): Promise<UpgradeWorkflow> {
    const wf = await this.find(id);
    if (wf !== this.wf) throw new OpError('UPGRADE_REFUSED', `upgrade ${id} is ${wf.state}: only the current one can be acted on`);
    const step = this.stepOf(wf, member);
    const at = Date.now();
    let event: WorkflowEvent;
    switch (action) {
      case 'skip':
        event = { type: 'skip', address: step.address, at, by, confirmation: confirmation ?? '' };
        break;
      case 'markDone':
        event = { type: 'markDone', address: step.address, at, by };
        break;
      case 'restartAgain': {
        // The step starts over: its member is restarted once the gates pass, so the members must be the plan's and the lock ours.
        const mismatch = membersMismatch(wf, this.guard.requireHealth());
        if (mismatch !== null) throw new OpError('UPGRADE_REFUSED', mismatch);
        event = { type: 'restartAgain', address: step.address, at, by };
        break;
      }
      default: {
        const never: never = action;
        throw new Error(`unhandled step action ${String(never)}`);
      }
    }
    this.refuseIfError(wf, event);
    if (!this.owner) return this.actThroughStore(id, event);
    if (action === 'restartAgain') {
      await this.guard.takeLock(id, by);
      this.refusedResume = null;
    }
    this.apply(event);
    return this.storedForAnswer(id);
  }

  /**
   * With replicas, an action's answer waits for its state to be stored in the home ensemble, as a
   * new workflow's does: behind a load balancer the next read may land on another replica, which
   * reads the stored workflow, and must not find the state before the one answered ("planned"
   * after the start was answered, as CI saw). Bounded: while the home ensemble does not answer
   * (its leader lost), the writer goes on retrying and the answer is this replica's state after
   * STORED_ANSWER_WAIT_MS. Refused when another replica wrote first: this one runs nothing more.
   */
  private async storedForAnswer(id: string): Promise<UpgradeWorkflow> {
    if (this.shared) {
      const stored = await storedWithin(this.lastSave, STORED_ANSWER_WAIT_MS);
      if (stored === null)
        this.log.warn({ upgrade: id }, `upgrade action answered before its state was stored in the home ensemble (${STORED_ANSWER_WAIT_MS} ms): still retried`);
      if (stored === false)
        throw new OpError('UPGRADE_IN_PROGRESS', `upgrade ${id}: the action was not stored in the home ensemble: another replica wrote first and runs it now`);
    }
    return this.wf!;
  }

  // ---- the loop ----

  private onHealth(health: EnsembleHealth): void {
    if (!this.loaded) {
      const id = this.identity.current();
      if (id === null) return;
      if (this.shared) {
        this.opening ??= this.openShared(id).catch((error: unknown) => {
          this.log.warn({ err: error }, 'the upgrades kept in the home ensemble could not be read yet: again at the next poll');
          this.opening = null;
        });
        return;
      }
      if (this.settings.stateDir === null) return;
      // The first poll with the identity known: this ensemble's name-keyed files (from Keepers before) move under it, then load.
      const stateDir = this.settings.stateDir;
      try {
        migrateNameKeyed(
          stateDir,
          this.config.name,
          id,
          health.members.map((m) => m.address),
          this.log,
        );
      } catch (error) {
        this.log.error({ err: error }, 'upgrade state files could not be moved to the identity directory');
      }
      this.load(new UpgradeStore(upgradesDir(stateDir, id), this.log));
    }
    const wf = this.wf;
    if (!wf || finished(wf) || !this.owner) return;
    const at = Date.now();
    if (this.needsResume) {
      this.needsResume = false;
      this.resumeAfterRestart(wf, health, at);
    }
    if (this.previousSession !== null) void this.watchPreviousSession();
    if (this.refusedResume !== null) return;
    this.apply({ type: 'poll', at, health });
  }

  private load(store: UpgradeStore): void {
    this.store = store;
    const all = this.store.load();
    this.wf = all.find((w) => !finished(w)) ?? all[0] ?? null;
    this.needsResume = this.wf !== null && (this.wf.state === 'running' || this.wf.state === 'paused');
    if (this.needsResume) this.log.info({ upgrade: this.wf!.id, state: this.wf!.state }, 'upgrade resumes from its state file at the first poll');
    this.loaded = true;
    for (const listener of this.listeners) listener(this.wf);
  }

  /**
   * After Keeper itself restarted: a plan for other members is refused; otherwise each current
   * step is judged (resume.ts), a restart command that outlived the killed process is waited for
   * and ended at its deadline, and the killed process's session is watched until it expires.
   */
  private resumeAfterRestart(wf: UpgradeWorkflow, health: EnsembleHealth, at: number): void {
    const commandsRunning = new Set(wf.steps.filter((s) => s.command?.process && isStillRunning(s.command.process)).map((s) => s.address));
    const { workflow, decisions, refused } = resumeFrom(wf, health, at, { commandsRunning, ...(this.resumeCause ? { cause: this.resumeCause } : {}) });
    this.resumeCause = null;
    if (refused !== null) {
      this.refusedResume = refused;
      this.log.warn({ upgrade: wf.id, reason: refused }, 'upgrade not resumed: its plan names other members');
      this.commit(wf, workflow);
      return;
    }
    this.log.info({ upgrade: wf.id, decisions }, this.shared ? 'upgrade resumed by this replica' : 'upgrade resumed after a Keeper restart');
    const mine = this.gateway.session.sessionId;
    const previous = wf.keeperSession;
    if (previous !== null && (mine === null || normalizeSessionId(previous) !== normalizeSessionId(mine))) void this.notePreviousSession(previous);
    this.commit(wf, workflow);
    for (const decision of decisions.filter((d) => d.action === 'wait-for-command')) this.endInheritedCommandAtDeadline(decision.address);
  }

  /** A command left running by a killed Keeper gets what the one who started it would have done: killed at its deadline. */
  private endInheritedCommandAtDeadline(address: string): void {
    const step = this.wf?.steps.find((s) => s.address === address);
    const deadlineAt = step?.command?.deadlineAt;
    if (!step || deadlineAt === null || deadlineAt === undefined) return;
    const id = this.wf!.id;
    const recorded = step.command?.process ?? null;
    const timer = setTimeout(
      () => {
        this.inheritedCommands.delete(address);
        // Past its deadline it is killed whatever became of the step; the step hears of it only if it still waits on that restart.
        if (!recorded || !killProcessGroup(recorded)) return;
        this.log.warn({ upgrade: id, member: address, pid: recorded.pid }, 'an inherited restart command outlived its deadline: its process group was killed');
        const now = this.wf?.id === id ? this.wf.steps.find((s) => s.address === address) : undefined;
        if (now?.restartRequestedAt !== step.restartRequestedAt) return;
        this.apply({ type: 'restartResult', address, at: Date.now(), exitCode: null, outputTail: '', timedOut: true, inherited: true });
      },
      Math.max(0, deadlineAt - Date.now()),
    );
    timer.unref();
    this.inheritedCommands.set(address, timer);
  }

  /**
   * The killed process's session still holds this upgrade's lock until it expires (nobody can
   * close it now). Only a session seen holding it after the restart is watched: one already gone
   * may have been closed rather than expired, and is not counted.
   */
  private async notePreviousSession(previous: string): Promise<void> {
    for (let round = 0; round < 5 && !this.closed; round++) {
      try {
        const owner = await this.lock.owner();
        if (owner !== null && normalizeSessionId(owner) === normalizeSessionId(previous)) this.previousSession = previous;
        return;
      } catch {
        await sleep(backoffDelay(round, LOCK_RETRY));
      }
    }
  }

  /** When the lock is seen gone from the watched session, its expiry is counted apart from the clients'. */
  private async watchPreviousSession(): Promise<void> {
    const previous = this.previousSession;
    const wf = this.wf;
    if (previous === null || !wf || this.watchingPrevious) return;
    this.watchingPrevious = true;
    try {
      const owner = await this.lock.owner();
      if (owner !== null && normalizeSessionId(owner) === normalizeSessionId(previous)) return;
      this.previousSession = null;
      this.log.info({ upgrade: wf.id, session: previous }, "the previous Keeper process's session ended");
      this.apply({ type: 'previousKeeperSessionEnded', at: Date.now(), sessionId: previous });
    } catch {
      // Not known this time: looked at again on the next poll.
    } finally {
      this.watchingPrevious = false;
    }
  }

  private apply(event: WorkflowEvent): void {
    const wf = this.wf;
    if (this.closed || !this.owner || !wf || (finished(wf) && event.type !== 'abort')) return;
    const next = workflowReducer(wf, event);
    if (next !== wf && !sameContent(wf, next)) this.commit(wf, next);
  }

  /** A new state: on disk when it matters (write-ahead for restarts), audited, pushed, released at the end. */
  private commit(prev: UpgradeWorkflow | null, proposed: UpgradeWorkflow): void {
    // Which Keeper session runs it, so that the next process, after a kill, knows its predecessor's.
    const session = this.gateway.session.sessionId;
    const next =
      !finished(proposed) && proposed.state !== 'planned' && session !== null && proposed.keeperSession !== session
        ? { ...proposed, keeperSession: session }
        : proposed;
    this.wf = next;
    if (prev === null || signature(prev) !== signature(next) || this.mustStore) {
      this.mustStore = false;
      this.save(next);
      this.auditTransitions(prev, next);
    }
    this.afterChange(prev, next);
  }

  /** Keeps the state: on disk (or in memory) with a single Keeper, in the home ensemble with replicas (write-ahead for restarts). */
  private save(next: UpgradeWorkflow): void {
    if (this.shared) {
      this.lastSave = this.writer ? this.writer.submit(next) : Promise.resolve(false);
      return;
    }
    try {
      this.store?.save(next);
    } catch (error) {
      this.log.error({ err: error, upgrade: next.id }, 'could not write the upgrade state file');
    }
    this.lastSave = Promise.resolve(true);
  }

  private auditTransitions(prev: UpgradeWorkflow | null, next: UpgradeWorkflow): void {
    this.lastAudit = Promise.all(
      transitionEntries(prev, next).map((entry) =>
        this.settings.audit?.(entry).catch((error: unknown) => this.log.warn({ err: error }, 'upgrade audit entry not written')),
      ),
    );
  }

  /** What follows any new state this replica runs: the lock released at the end, the pollers' pace, the listeners, the restarts due. */
  private afterChange(prev: UpgradeWorkflow | null, next: UpgradeWorkflow): void {
    if (finished(next) && (prev === null || !finished(prev))) {
      void this.lock.release(next.id).catch((error: unknown) => this.log.warn({ err: error }, 'upgrade lock not released (it goes with the session)'));
      if (this.shared) void this.endOwnership(next.id);
    }
    this.health.setBrisk?.(this.owner && wantsBrisk(next) ? BRISK_POLL_MS : null);
    for (const listener of this.listeners) listener(next);
    this.issueRestarts();
  }

  private issueRestarts(): void {
    const wf = this.wf;
    if (!wf || !this.owner || this.closed) return;
    for (const step of stepsToRestart(wf)) {
      if (this.inFlight.has(step.address)) continue;
      this.inFlight.add(step.address);
      void this.restart(wf.id, step.address)
        .catch((error: unknown) => this.log.error({ err: error, member: step.address }, 'upgrade restart failed unexpectedly'))
        .finally(() => this.inFlight.delete(step.address));
    }
  }

  private async restart(id: string, address: string): Promise<void> {
    // Before touching a member: this process still holds the lock (a lost session loses it).
    const holder = await this.holdLockFor(id, address);
    const wf = this.wf;
    const step = wf?.id === id ? stepsToRestart(wf).find((s) => s.address === address) : undefined;
    if (!step) return;
    if (holder !== null) {
      this.apply({ type: 'pause', at: Date.now(), by: 'keeper', reason: `the ensemble's upgrade lock is held by ${holder}; nothing was restarted` });
      return;
    }
    const { method } = this.restarter;
    let described: ReturnType<Restarter['describe']>;
    const at = Date.now();
    try {
      described = this.restarter.describe(step, at);
    } catch (error) {
      // Not run: the template or the member's values were refused (a host that is not a host name, ...).
      this.apply({ type: 'restartStarted', address, at, method, commandLine: null });
      this.apply({ type: 'restartResult', address, at: Date.now(), exitCode: null, outputTail: (error as Error).message });
      return;
    }
    // Write-ahead: committed (and on disk, or in the home ensemble) before the restart runs, so neither a Keeper
    // restart nor another replica taking over ever issues it twice. Not stored (another replica wrote first): not run.
    this.apply({ type: 'restartStarted', address, at, method, ...described });
    // With replicas, its audit entry too, before the command: a replica killed as the command starts would otherwise take
    // "restarting member N" with it (in 20 ms of group commit), and the replica taking over never asks again, so the shared
    // trail would not say who restarted it. Bounded: an append stops waiting after 10 s (the entry is in this replica's file,
    // the window gets it later). A single Keeper's file is its whole trail, and killed it takes nothing another would resume.
    const [stored] = await Promise.all([this.lastSave, this.shared ? this.lastAudit : null]);
    if (!stored || !this.owner || this.closed) {
      this.log.warn({ upgrade: id, member: address }, 'upgrade restart not run: its request was not stored (another replica runs the upgrade now)');
      return;
    }
    this.log.info({ upgrade: id, member: address, method, ...described }, 'upgrade restarts a member');
    const outcome = await this.restarter.run(step, (process) => this.apply({ type: 'restartProcess', address, at: Date.now(), process }));
    if (outcome) this.apply({ type: 'restartResult', address, at: Date.now(), ...outcome });
  }

  /**
   * Null when this process holds the upgrade lock, else who does. A previous Keeper process of
   * this same upgrade (a restart mid-upgrade) is waited for until its session has had time to
   * expire, retrying with jitter; it never gets the lock taken from it while that session lives.
   */
  private async holdLockFor(id: string, address: string): Promise<string | null> {
    const began = Date.now();
    const waitMs = lockTakeoverWaitMs(this.settings.lockTakeoverMs, this.sessionTimeoutMs());
    const waitUntil = began + waitMs;
    let said = false;
    for (let round = 0; ; round++) {
      let attempt: LockAttempt;
      try {
        attempt = await this.lock.acquire(id, this.wf?.createdBy ?? null);
      } catch (error) {
        return `unknown: the lock could not be checked (${toOpError(error).message})`;
      }
      if (attempt.held) {
        if (said)
          this.apply({
            type: 'lockWait',
            address,
            at: Date.now(),
            ok: true,
            saw: `taken after ${Math.round((Date.now() - began) / 1000)} s: the previous session ended`,
          });
        return null;
      }
      if (!attempt.sameUpgrade || this.closed || this.wf?.id !== id || Date.now() >= waitUntil) {
        return attempt.sameUpgrade
          ? `${attempt.holder}, this same upgrade, still after waiting for its session to end: is another Keeper process running it from the same state directory?`
          : attempt.holder;
      }
      if (!said) {
        said = true;
        const saw = `held by ${attempt.holder}, this upgrade's previous Keeper process: waiting up to ${Math.round(waitMs / 1000)} s for its session to end before restarting`;
        this.apply({ type: 'lockWait', address, at: Date.now(), ok: false, saw });
        this.log.info({ upgrade: id, holder: attempt.holder }, "upgrade waits for the previous Keeper process's session to end before taking its lock");
      }
      await sleep(backoffDelay(round, LOCK_RETRY));
    }
  }

  private sessionTimeoutMs(): number {
    return this.gateway.session.timeoutMs;
  }

  // ---- with replicas: one replica runs the current upgrade, the others mirror it ----

  /** Reads the workflows kept in the home ensemble and follows them; an unfinished one nobody runs is taken over. */
  private async openShared(ensembleId: string): Promise<void> {
    const shared = this.shared!;
    const stored = await shared.open(ensembleId, { changed: (s) => this.onStored(s), ownerGone: () => this.onOwnerGone() });
    const newest = [...stored].sort((a, b) => b.wf.createdAt - a.wf.createdAt);
    this.wf = (newest.find((s) => !finished(s.wf)) ?? newest[0])?.wf ?? null;
    this.loaded = true;
    for (const listener of this.listeners) listener(this.wf);
    if (this.wf && !finished(this.wf)) void this.takeOverIfUnowned();
  }

  /** A workflow as stored by any replica: mirrored by a follower; for the replica running it, another replica's action to adopt. */
  private onStored(stored: StoredWorkflow): void {
    const wf = this.wf;
    if (this.closed) return;
    if (this.owner) {
      if (!wf || stored.wf.id !== wf.id || stored.version <= (this.writer?.storedVersion ?? -1)) return;
      if (this.writer?.busy) this.foreignSeen = true;
      else void this.reconcile();
      return;
    }
    // An older upgrade changed (pruned history, a late write): history, not the current one.
    if (wf && stored.wf.id !== wf.id && stored.wf.createdAt < wf.createdAt) return;
    this.mirror(stored.wf);
  }

  private onOwnerGone(): void {
    const wf = this.wf;
    if (this.closed || !this.loaded || !wf || finished(wf)) return;
    // This replica's own state session ended (its znode went with it): it claims again, or finds another replica has.
    if (this.owner) void this.reconcile();
    else void this.takeOverIfUnowned();
  }

  /** The current upgrade is nobody's (its replica's session ended): claimed, and if won, run from what is stored. */
  private async takeOverIfUnowned(): Promise<void> {
    if (this.takingOver) return;
    this.takingOver = true;
    try {
      for (let attempt = 0; !this.closed && !this.owner; attempt++) {
        const wf = this.wf;
        if (!wf || finished(wf)) return;
        try {
          const claim = await this.shared!.claim(wf.id);
          if (!claim.won) return;
          const stored = await this.shared!.read(wf.id);
          if (!stored || finished(stored.wf)) {
            await this.shared!.release(wf.id);
            if (stored) this.mirror(stored.wf);
            return;
          }
          this.beginTakeOver(stored, claim.since);
          return;
        } catch (error) {
          if (attempt === 0 || attempt % 10 === 0) this.log.warn({ err: error, upgrade: wf.id }, 'could not take over the upgrade yet: retrying');
          await sleep(backoffDelay(attempt, SHARED_RETRY));
        }
      }
    } finally {
      this.takingOver = false;
    }
  }

  /**
   * This replica holds the ownership: it goes on from the stored workflow. When another replica ran
   * it, the hand-over is recorded (ZooKeeper's time of the owner znode), and the steps under way are
   * judged as after a Keeper restart (resume.ts): a restart asked for is never asked again, the
   * previous replica's command is waited for, its lock awaited until its session has expired.
   */
  private beginTakeOver(stored: StoredWorkflow, since: number): void {
    const self = this.shared!.self;
    const from = stored.wf.runBy;
    const handedOver = from === null || from.replica !== self.replica;
    const next = handedOver
      ? recordHandover(stored.wf, { at: since, from: from ? { replica: from.replica, name: from.name } : null, to: self })
      : { ...stored.wf, runBy: { ...self, since } };
    if (handedOver) {
      this.log.warn({ upgrade: next.id, from: from?.name ?? null, at: since }, handoverSentence({ from, to: self }));
      // In the trail too, before anything this replica restarts (its restarts wait for the entries appended before them).
      const entry = this.settings.audit?.(handoverEntry(next, next.handovers.at(-1)!));
      this.lastAudit = Promise.all([this.lastAudit, entry?.catch((error: unknown) => this.log.warn({ err: error }, 'hand-over audit entry not written'))]);
    }
    this.becomeOwner(stored.version, since);
    this.mustStore = true;
    this.needsResume = handedOver && (next.state === 'running' || next.state === 'paused');
    this.resumeCause = handedOver ? `replica ${self.name} took over` : null;
    if (!this.needsResume) {
      this.commit(stored.wf, next);
      return;
    }
    // Shown at once; stored with the resume's decisions at the first poll (it reads the previous replica's session from it).
    this.wf = next;
    for (const listener of this.listeners) listener(next);
    const health = this.health.current();
    if (health) this.onHealth(health);
  }

  private becomeOwner(version: number | null, since: number): void {
    this.writer?.stop();
    this.owner = true;
    this.ownedSince = since;
    this.foreignSeen = false;
    this.writer = new WorkflowWriter(
      version,
      (wf, v) => this.shared!.write(wf, v),
      {
        stored: () => {
          if (!this.foreignSeen) return;
          this.foreignSeen = false;
          void this.reconcile();
        },
        conflict: () => void this.reconcile(),
      },
      this.log,
    );
  }

  /**
   * Another replica wrote the workflow, or this one's ownership znode went: read what is stored
   * and who owns it. Still this replica's: the stored state is adopted (an action taken on another
   * replica). Another's: this replica follows, and lets its lock go so the new owner need not wait.
   */
  private reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      for (let attempt = 0; !this.closed && this.owner; attempt++) {
        const wf = this.wf;
        if (!wf) return;
        try {
          let owns = await this.shared!.owns(wf.id);
          if (!owns && !finished(wf)) {
            const claim = await this.shared!.claim(wf.id);
            owns = claim.won;
            if (claim.won) this.ownedSince = claim.since;
          }
          const stored = await this.shared!.read(wf.id);
          if (!owns || !stored) return this.becomeFollower(stored?.wf ?? wf);
          if (stored.wf.runBy?.replica !== this.shared!.self.replica) return this.beginTakeOver(stored, this.ownedSince);
          if (stored.version !== this.writer?.storedVersion || this.writer === null) this.adopt(stored);
          return;
        } catch (error) {
          if (attempt === 0 || attempt % 10 === 0) this.log.warn({ err: error, upgrade: wf.id }, 'could not read the stored upgrade yet: retrying');
          await sleep(backoffDelay(attempt, SHARED_RETRY));
        }
      }
    })().finally(() => (this.reconciling = null));
    return this.reconciling;
  }

  /** The replica running it takes the stored state as its own (written by an action on another replica). */
  private adopt(stored: StoredWorkflow): void {
    const prev = this.wf;
    this.becomeOwner(stored.version, this.ownedSince);
    this.wf = stored.wf;
    this.afterChange(prev, stored.wf);
  }

  private becomeFollower(wf: UpgradeWorkflow): void {
    const id = this.wf?.id ?? wf.id;
    this.log.warn({ upgrade: id }, 'another replica runs the upgrade now: this one follows it');
    this.owner = false;
    this.writer?.stop();
    this.writer = null;
    this.needsResume = false;
    this.resumeCause = null;
    this.previousSession = null;
    for (const timer of this.inheritedCommands.values()) clearTimeout(timer);
    this.inheritedCommands.clear();
    // This console session's lock would keep the new owner waiting for its session to end.
    void this.lock.release(id).catch(() => undefined);
    this.mirror(wf);
  }

  /** A follower shows the stored state as it is. */
  private mirror(wf: UpgradeWorkflow): void {
    this.wf = wf;
    this.health.setBrisk?.(null);
    for (const listener of this.listeners) listener(wf);
  }

  /** An action on a replica that does not run the upgrade: applied to what is stored (compare-and-set), carried out by the one that does. */
  private async actThroughStore(id: string, event: WorkflowEvent): Promise<UpgradeWorkflow> {
    let before: UpgradeWorkflow | null = null;
    let stored: StoredWorkflow;
    try {
      stored = await this.shared!.update(id, (current) => {
        before = current;
        this.refuseIfError(current, event);
        return workflowReducer(current, event);
      });
    } catch (error) {
      throw error instanceof OpError ? error : toOpError(error);
    }
    this.auditTransitions(before, stored.wf);
    if (!this.owner) this.mirror(stored.wf);
    return stored.wf;
  }

  /** A new upgrade on this replica: it takes the ensemble's ownership, or is told which replica runs another. */
  private async claimForNew(id: string): Promise<NonNullable<UpgradeWorkflow['runBy']>> {
    const claim = await this.shared!.claim(id).catch((error: unknown) => {
      throw toOpError(error);
    });
    if (!claim.won) {
      const other = claim.owner;
      throw new OpError(
        'UPGRADE_IN_PROGRESS',
        other
          ? `replica ${other.name} runs upgrade ${other.upgradeId} of ${this.config.name}`
          : `another replica is taking on an upgrade of ${this.config.name}`,
      );
    }
    return { ...this.shared!.self, since: claim.since };
  }

  /** The upgrade ended: once its last state is stored, nobody needs to own it. */
  private async endOwnership(id: string): Promise<void> {
    const stored = await this.lastSave;
    if (!stored || this.wf?.id !== id) return;
    this.owner = false;
    this.writer?.stop();
    this.writer = null;
    try {
      await this.shared!.release(id);
      await this.shared!.prune();
    } catch (error) {
      this.log.warn({ err: error, upgrade: id }, 'upgrade ownership not released (it goes with the state session)');
    }
  }

  // ---- helpers ----

  private assertNoneInProgress(): void {
    const wf = this.wf;
    if (this.creating) throw new OpError('UPGRADE_IN_PROGRESS', `an upgrade of ${this.config.name} is being created right now`);
    const other = this.otherWorkflow();
    if (other !== null) throw new OpError('UPGRADE_IN_PROGRESS', other);
    if (wf && !finished(wf)) {
      throw new OpError(
        'UPGRADE_IN_PROGRESS',
        `upgrade ${wf.id} of ${this.config.name} is ${wf.state}${wf.createdBy ? ` (planned by ${wf.createdBy})` : ''}: finish or abort it first`,
      );
    }
  }

  private refuseIfError(wf: UpgradeWorkflow, event: WorkflowEvent): void {
    const error = workflowEventError(wf, event);
    if (error !== null) throw new OpError('UPGRADE_REFUSED', error);
  }

  /** A step by member id ("2") or address ("zk2:2181"). */
  private stepOf(wf: UpgradeWorkflow, member: string): UpgradeStep {
    const step = /^\d+$/.test(member) ? wf.steps.find((s) => s.memberId === Number(member)) : wf.steps.find((s) => s.address === member);
    if (!step) throw new OpError('UNKNOWN_MEMBER', `upgrade ${wf.id} has no step for member ${JSON.stringify(member.slice(0, 100))}`);
    return step;
  }
}

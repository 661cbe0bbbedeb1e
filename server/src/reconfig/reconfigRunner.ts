/**
 * One ensemble's resize (issue 24 item 2, docs/design/reconfig.md): plans with the shared planner, then
 * runs one incremental reconfig per step, each conditioned on the version verified after the step
 * before (`verifiedVersion`), and checks after each step /zookeeper/config, every member's role,
 * the leader's synced followers and the quorum sentence before the next. Written ahead to disk
 * (a step is `sending` on disk before it goes out), keyed by the ensemble's identity; a Keeper
 * restarted mid-resize reads /zookeeper/config before anything. It takes the ensemble's
 * upgrade lock (an ephemeral znode of the console's session), so a resize and an upgrade never
 * run together. The steps go through a session of their own, opened with `reconfigAuth` only
 * while a resize runs: Keeper's everyday session never holds the super user.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import {
  backoffDelay,
  isReconfigFinished,
  joinerStart,
  normalizeSessionId,
  parseConf,
  parseDynamicConfig,
  parseMntr,
  parseSrvr,
  planReconfig,
  reconfigConfirmationMatches,
  StartCommandError,
  summarizeQuorum,
  type DynamicConfig,
  type EnsembleHealth,
  type EnsembleTimings,
  type ReconfigAction,
  type ReconfigActionBody,
  type ReconfigCreateBody,
  type ReconfigStep,
  type ReconfigWorkflow,
} from '@keeper/shared';
import type { AuditInput } from '../audit/auditLog.js';
import type { EnsembleConfig } from '../config/types.js';
import { OpError, toOpError } from '../admin/opError.js';
import type { EnsembleIdentityReader } from '../config/ensembleState.js';
import { fourLetterWord } from '../members/wire.js';
import { ZkGateway } from '../zk/gateway.js';
import { ZkMutations } from '../zk/mutations.js';
import { RunGuard } from '../workflows/runGuard.js';
import { WorkflowLock } from '../workflows/workflowLock.js';
import { lockTakeoverWaitMs, type HealthSource } from '../workflows/ownership.js';
import { CONFIG_PATH, executeReconfigStep, hasChange } from './executor.js';
import { gatherReconfigPreflight } from './preflight.js';
import { RECONFIG_ID, ReconfigStore, reconfigsDir } from './reconfigStore.js';

export interface ReconfigSettings {
  stateDir: string | null;
  audit?: (entry: AuditInput) => Promise<unknown>;
  /** How long the check after a step waits for the members to show the new configuration (default 60 s). */
  verifyWithinMs?: number;
  /** How long a resumed resize waits for its previous process's lock (default: twice the session timeout plus 5 s). */
  lockTakeoverMs?: number;
}

const ASK_MS = 2_000;
const KEEPER = { name: 'keeper', role: null, via: 'reconfig' } as const;
/** A reply lost with the version unchanged is resent at most this often before the resize pauses. */
const MAX_ATTEMPTS = 3;

/** A non-admin's view of Keeper's business: nothing here is secret, the same workflow for everyone. */
export class ReconfigRunner {
  private settings: ReconfigSettings = { stateDir: null };
  private store: ReconfigStore | null = null;
  private readonly lock: WorkflowLock;
  private readonly guard: RunGuard;
  private wf: ReconfigWorkflow | null = null;
  private loaded = false;
  private needsResume = false;
  private creating = false;
  private running: Promise<void> | null = null;
  /** The session the steps go through, open while a resize runs. */
  private stepGateway: ZkGateway | null = null;
  private readonly listeners = new Set<(wf: ReconfigWorkflow | null) => void>();
  private stops: (() => void)[] = [];
  private closed = false;
  /** What else holds the ensemble (its upgrade): a resize is refused while it is in progress. */
  private otherWorkflow: () => string | null = () => null;
  /**
   * A seam for tests that must see a step in flight: awaited once the step is on disk as
   * `sending`, before its request goes out, so a test holds the step there instead of hoping a
   * poll or a push lands inside it. Nothing sets it outside tests.
   */
  beforeSend: ((step: ReconfigStep) => Promise<void>) | null = null;
  /**
   * The same for a start: awaited once its preflight passed, before the lock is taken, so a test
   * can pause or abort a resize while it starts. Nothing sets it outside tests.
   */
  beforeLock: ((id: string) => Promise<void>) | null = null;
  /** The resize whose start is under way (its preflight, the lock), and a pause asked meanwhile. */
  private starting: { id: string; pausedBy: string | null } | null = null;

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
      kept: 'resizes',
      isLoaded: () => this.loaded,
      identity,
      health,
      lock: this.lock,
      lockHeld: (holder) => `the ensemble's upgrade lock is held: ${holder}; an upgrade and a resize never run together`,
    });
  }

  configure(settings: ReconfigSettings): void {
    this.settings = settings;
  }

  /** The upgrade runner's "in progress" sentence, or null: the two never run together in this process. */
  blockWhile(other: () => string | null): void {
    this.otherWorkflow = other;
  }

  start(): void {
    if (this.settings.stateDir === null) this.load(new ReconfigStore(null, this.log));
    this.stops.push(this.health.subscribe((h) => this.onHealth(h)));
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
    this.listeners.clear();
    this.stepGateway?.close();
    this.stepGateway = null;
  }

  // ---- reading ----

  get ready(): boolean {
    return this.loaded;
  }

  current(): ReconfigWorkflow | null {
    return this.wf;
  }

  /** "resize <id> is running", or null when none is planned, running or paused. */
  inProgress(): string | null {
    const wf = this.wf;
    if (this.creating) return `a resize of ${this.config.name} is being planned right now`;
    return wf && !isReconfigFinished(wf) ? `resize ${wf.id} of ${this.config.name} is ${wf.state}: finish or abort it first` : null;
  }

  list(): ReconfigWorkflow[] {
    this.guard.requireReady();
    return (this.store?.list() ?? []).map((w) => (w.id === this.wf?.id ? this.wf : w));
  }

  get(id: string): ReconfigWorkflow {
    this.guard.requireReady();
    const wf = RECONFIG_ID.test(id) ? (this.wf?.id === id ? this.wf : (this.store?.get(id) ?? null)) : null;
    if (!wf) throw new OpError('UNKNOWN_RECONFIG', `no resize ${JSON.stringify(id.slice(0, 64))} of ${this.config.name}`);
    return wf;
  }

  onChange(listener: (wf: ReconfigWorkflow | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- acting (the routes audit these; they throw OpError) ----

  async create(by: string, body: ReconfigCreateBody): Promise<ReconfigWorkflow> {
    this.guard.requireReady();
    const busy = this.inProgress() ?? this.otherWorkflow();
    if (busy !== null) throw new OpError('UPGRADE_IN_PROGRESS', busy);
    const health = this.guard.requireHealth();
    this.creating = true;
    let created: ReconfigWorkflow;
    try {
      const configText = (await this.gateway.getData(CONFIG_PATH)).data.toString('utf8');
      const config = parseDynamicConfig(configText);
      const change = { add: body.add ?? [], remove: body.remove ?? [], roles: body.roles ?? {} };
      const plan = planReconfig({ configText, change, leaderId: leaderIdOf(health), connectedMemberId: this.connectedMemberId(config) });
      if (!plan.ok) throw new OpError('RECONFIG_REFUSED', `the resize is refused: ${plan.refusals.join('; ')}`);
      const at = Date.now();
      created = {
        id: randomUUID(),
        ensemble: this.config.name,
        state: 'planned',
        reason: null,
        createdAt: at,
        createdBy: by,
        updatedAt: at,
        finishedAt: null,
        change,
        fromConfig: plan.fromConfig,
        verifiedVersion: plan.fromConfig,
        sizeSentence: plan.sizeSentence,
        before: plan.before,
        after: plan.after,
        risks: plan.risks,
        confirmationPhrase: plan.confirmationPhrase,
        confirmedBy: null,
        preflight: [],
        steps: plan.steps.map((s) => ({
          index: s.index,
          kind: s.kind,
          memberId: s.memberId,
          joining: s.joining,
          leaving: s.leaving,
          zkCli: s.zkCli,
          leader: s.leader,
          sentence: s.sentence,
          state: 'pending',
          fromConfig: null,
          version: null,
          sentAt: null,
          doneAt: null,
          attempts: 0,
          checks: [],
          reason: null,
        })),
        joiners: [],
        keeperSession: null,
      };
      created.joiners = await this.joinersOf(config, plan.steps, health);
      created.preflight = await this.preflight(created, health);
      this.commit(created);
    } finally {
      this.creating = false;
    }
    if (body.start) {
      try {
        return await this.act(by, created.id, 'start', body.confirmation !== undefined ? { confirmation: body.confirmation } : {});
      } catch (error) {
        const e = toOpError(error);
        throw new OpError(e.code, `resize ${created.id} is planned but did not start: ${e.message}`);
      }
    }
    return this.wf!;
  }

  async act(by: string, id: string, action: ReconfigAction, body: ReconfigActionBody): Promise<ReconfigWorkflow> {
    const wf = this.get(id);
    if (wf !== this.wf || isReconfigFinished(wf)) throw new OpError('RECONFIG_REFUSED', `resize ${id} is ${wf.state}: only the current one can be acted on`);
    const at = Date.now();
    switch (action) {
      case 'start': {
        if (wf.state !== 'planned') throw new OpError('RECONFIG_REFUSED', `resize ${id} is ${wf.state}: only a planned one starts (resume a paused one)`);
        if (!reconfigConfirmationMatches(wf.confirmationPhrase, body.confirmation)) {
          throw new OpError(
            'RECONFIG_REFUSED',
            `${wf.risks.map((r) => r.sentence).join(' ')} Type "${wf.confirmationPhrase}" as the confirmation to start it${body.confirmation ? ` (got ${JSON.stringify(body.confirmation.slice(0, 80))})` : ''}`,
          );
        }
        const busy = this.otherWorkflow();
        if (busy !== null) throw new OpError('UPGRADE_IN_PROGRESS', busy);
        if (this.starting !== null) throw new OpError('RECONFIG_REFUSED', `resize ${id} is starting already`);
        this.starting = { id, pausedBy: null };
        try {
          await this.startPlanned(wf, by);
        } finally {
          this.starting = null;
        }
        break;
      }
      case 'pause':
        // Pause is reachable while a start is under way (its preflight takes a few seconds): it starts paused.
        if (wf.state === 'planned' && this.starting?.id === id) {
          this.starting.pausedBy = `paused by ${by}${body.reason ? `: ${body.reason}` : ''} as it started: nothing was sent; resume sends the first step`;
          break;
        }
        if (wf.state !== 'running') throw new OpError('RECONFIG_REFUSED', `resize ${id} is ${wf.state}: only a running one pauses`);
        this.commit({
          ...wf,
          state: 'paused',
          reason: `paused by ${by}${body.reason ? `: ${body.reason}` : ''}; a step already sent finishes and is verified`,
        });
        break;
      case 'resume': {
        if (wf.state !== 'paused') throw new OpError('RECONFIG_REFUSED', `resize ${id} is ${wf.state}: only a paused one resumes`);
        const busy = this.otherWorkflow();
        if (busy !== null) throw new OpError('UPGRADE_IN_PROGRESS', busy);
        await this.guard.takeLock(id, by);
        this.commit({ ...this.wf!, state: 'running', reason: null });
        this.run();
        break;
      }
      case 'abort':
        this.finish(
          wf,
          'aborted',
          `aborted by ${by}${body.reason ? `: ${body.reason}` : ''}; the steps done stay done (${this.doneCount(wf)} of ${wf.steps.length})`,
          at,
        );
        break;
      default: {
        const never: never = action;
        throw new Error(`unhandled action ${String(never)}`);
      }
    }
    return this.wf!;
  }

  /**
   * A planned resize's start: the preflight again, the lock, then running (or paused, when a pause
   * came meanwhile). An abort that came meanwhile stands: the start never brings it back.
   */
  private async startPlanned(wf: ReconfigWorkflow, by: string): Promise<void> {
    const id = wf.id;
    const stillPlanned = () => {
      const now = this.wf;
      if (now?.id !== id || now.state !== 'planned')
        throw new OpError('RECONFIG_REFUSED', `resize ${id} was ${now?.id === id ? now.state : 'replaced'} while it started: nothing was sent`);
    };
    const preflight = await this.preflight(wf, this.guard.requireHealth());
    stillPlanned();
    const failing = preflight.filter((c) => !c.ok);
    this.commit({ ...this.wf!, preflight });
    if (failing.length > 0) throw new OpError('RECONFIG_REFUSED', `the preflight does not pass: ${failing.map((c) => c.saw).join('; ')}`);
    if (this.beforeLock) await this.beforeLock(id);
    stillPlanned();
    await this.guard.takeLock(id, by);
    try {
      stillPlanned();
    } catch (error) {
      await this.lock.release(id).catch(() => undefined);
      throw error;
    }
    const confirmedBy = wf.confirmationPhrase !== null ? by : null;
    const pausedBy = this.starting?.pausedBy ?? null;
    if (pausedBy !== null) {
      this.commit({ ...this.wf!, state: 'paused', reason: pausedBy, confirmedBy });
      return;
    }
    this.commit({ ...this.wf!, state: 'running', reason: null, confirmedBy });
    this.run();
  }

  // ---- the loop ----

  private onHealth(health: EnsembleHealth): void {
    if (!this.loaded) {
      const id = this.identity.current();
      if (id === null || this.settings.stateDir === null) return;
      this.load(new ReconfigStore(reconfigsDir(this.settings.stateDir, id), this.log));
    }
    if (this.needsResume && health) {
      this.needsResume = false;
      void this.resumeAfterRestart();
    }
  }

  private load(store: ReconfigStore): void {
    this.store = store;
    const all = store.load();
    this.wf = all.find((w) => !isReconfigFinished(w)) ?? all[0] ?? null;
    this.needsResume = this.wf?.state === 'running';
    if (this.needsResume) this.log.info({ reconfig: this.wf!.id }, 'a resize resumes from its state file: /zookeeper/config is read first');
    this.loaded = true;
    for (const listener of this.listeners) listener(this.wf);
  }

  /** After Keeper itself restarted mid-resize: the previous process's lock is waited for, then the loop verifies the step it left. */
  private async resumeAfterRestart(): Promise<void> {
    const wf = this.wf;
    if (!wf) return;
    const waitUntil = Date.now() + lockTakeoverWaitMs(this.settings.lockTakeoverMs, this.gateway.session.timeoutMs);
    for (let round = 0; !this.closed; round++) {
      try {
        const attempt = await this.lock.acquire(wf.id, wf.createdBy);
        if (attempt.held) break;
        if (!attempt.sameUpgrade || Date.now() >= waitUntil) {
          this.pause(`after a Keeper restart the ensemble's lock is held by ${attempt.holder}; nothing further was changed`);
          return;
        }
      } catch (error) {
        if (Date.now() >= waitUntil) {
          this.pause(`after a Keeper restart the lock could not be checked (${toOpError(error).message})`);
          return;
        }
      }
      await sleep(backoffDelay(round, { baseMs: 1_000, capMs: 2_000, jitter: [0.5, 1.5] }));
    }
    if (!this.closed) this.run();
  }

  private run(): void {
    if (this.running) return;
    this.running = this.loop()
      .catch((error: unknown) => {
        this.log.error({ err: error }, 'the resize loop failed unexpectedly');
        this.pause(`Keeper failed unexpectedly while running the resize: ${(error as Error).message}`);
      })
      .finally(() => {
        this.running = null;
        this.closeStepGateway();
      });
  }

  private async loop(): Promise<void> {
    for (;;) {
      const wf = this.wf;
      if (this.closed || !wf || wf.state !== 'running') return;
      const step = wf.steps.find((s) => s.state !== 'done');
      if (!step) {
        this.finish(wf, 'done', `every step verified: ${wf.sizeSentence}; configuration version ${wf.verifiedVersion}`, Date.now());
        return;
      }
      await this.runStep(wf.id, step);
    }
  }

  /** One step: a step left `sending` or `verifying` (a Keeper restart, a pause) is read back first, never sent blindly again. */
  private async runStep(id: string, planned: ReconfigStep): Promise<void> {
    const gateway = await this.openStepGateway();
    let step = planned;
    let version: string | null = step.state === 'verifying' ? step.version : null;
    if (step.state === 'sending') {
      const config = await this.readConfig(gateway);
      if (config.version !== null && config.version !== step.fromConfig && hasChange(config, step)) version = config.version;
      else if (config.version !== step.fromConfig) {
        return this.fail(
          `step ${step.index} was being sent under version ${step.fromConfig}; /zookeeper/config is now at ${config.version} without it: someone else reconfigured the ensemble; nothing further was changed`,
        );
      }
    }
    if (version === null) {
      if (step.attempts >= MAX_ATTEMPTS)
        return this.pause(`step ${step.index} was sent ${step.attempts} times and its reply lost each time; the configuration is still at ${step.fromConfig}`);
      // Write-ahead: on disk as sending, with its condition, before the request goes out.
      step = this.updateStep(id, step.index, {
        state: 'sending',
        fromConfig: this.wf!.verifiedVersion,
        sentAt: Date.now(),
        attempts: step.attempts + 1,
        reason: null,
      });
      if (this.beforeSend) {
        await this.beforeSend(step);
        if (this.closed) return;
      }
      const outcome = await executeReconfigStep(gateway, { joining: step.joining, leaving: step.leaving, fromConfig: step.fromConfig! });
      if (this.closed) return;
      switch (outcome.kind) {
        case 'applied':
          version = outcome.version;
          break;
        case 'notApplied':
          this.updateStep(id, step.index, { state: 'pending', reason: outcome.reason });
          return;
        case 'refused':
          if (outcome.code === 'BAD_VERSION') return this.fail(`step ${step.index}: ${outcome.reason}`);
          this.updateStep(id, step.index, { state: 'pending', reason: outcome.reason });
          return this.pause(`step ${step.index} (${step.sentence}) was refused: ${outcome.reason}`);
        case 'changedByOther':
          return this.fail(`step ${step.index}: ${outcome.reason}; nothing further was changed`);
        case 'unknown':
          return this.pause(`step ${step.index}: ${outcome.reason}; resume reads /zookeeper/config before sending anything`);
      }
    }
    step = this.updateStep(id, step.index, { state: 'verifying', version });
    this.audit(step, 'ok', null);
    // What the check sees while it waits is shown live (each change of it, at the check's own pace).
    let shown = '';
    const verified = await this.verify(gateway, step, version, (checks) => {
      const seen = checks.map((c) => `${c.id} ${c.ok} ${c.saw}`).join('\n');
      if (seen === shown || this.closed || this.wf?.id !== id) return;
      shown = seen;
      this.updateStep(id, step.index, { checks });
    });
    if (this.closed) return;
    if (!verified.ok) {
      this.updateStep(id, step.index, { checks: verified.checks, reason: verified.reason });
      return this.pause(`step ${step.index} was applied (version ${version}) but not verified: ${verified.reason}`);
    }
    // The step done and the version the next one is conditioned on, in one write: a stop between them cannot part them.
    const wf = this.wf!;
    const steps = wf.steps.map((s) =>
      s.index === step.index ? { ...s, state: 'done' as const, doneAt: Date.now(), checks: verified.checks, reason: null } : s,
    );
    this.commit({ ...wf, steps, verifiedVersion: version });
    this.audit(
      steps.find((s) => s.index === step.index)!,
      'ok',
      null,
    );
  }

  /**
   * After a step: /zookeeper/config has the change at the step's version; every member of it answers
   * srvr in its configured role and shows the step's version in its own `conf`; the leader's synced
   * followers count every voting follower; the quorum sentence over the new membership has a quorum.
   * Waited for up to verifyWithinMs.
   */
  private async verify(
    gateway: ZkGateway,
    step: ReconfigStep,
    version: string,
    onWaiting: (checks: ReconfigStep['checks']) => void = () => undefined,
  ): Promise<{ ok: true; checks: ReconfigStep['checks'] } | { ok: false; checks: ReconfigStep['checks']; reason: string }> {
    const until = Date.now() + (this.settings.verifyWithinMs ?? 60_000);
    let last: ReconfigStep['checks'] = [];
    for (let round = 0; ; round++) {
      const at = Date.now();
      const checks: ReconfigStep['checks'] = [];
      try {
        const config = await this.readConfig(gateway);
        const configOk = config.version === version && hasChange(config, step);
        checks.push({
          id: 'config',
          ok: configOk,
          saw: `/zookeeper/config at version ${config.version}${hasChange(config, step) ? ' with' : ' without'} the change`,
          at,
        });
        const modes = await Promise.all(
          config.members.map(async (m) => {
            const host = m.clientHost ?? m.host;
            const port = m.clientPort;
            if (port === null) return { member: m, mode: null, configVersion: null };
            const [text, conf] = await Promise.all([this.ask(host, port, 'srvr'), this.ask(host, port, 'conf')]);
            return {
              member: m,
              mode: text === null ? null : (parseSrvr(text)?.mode ?? null),
              configVersion: conf === null ? null : parseDynamicConfig(conf).version,
            };
          }),
        );
        const wrong = modes.filter(({ member, mode }) => (member.role === 'observer' ? mode !== 'observer' : mode !== 'leader' && mode !== 'follower'));
        checks.push({
          id: 'roles',
          ok: wrong.length === 0,
          saw: modes.map(({ member, mode }) => `${member.id} ${mode ?? 'no answer'}`).join(', '),
          at,
        });
        // /zookeeper/config is one member's view; each member's own `conf` says it applied the change too.
        const behind = modes.filter(({ configVersion }) => configVersion !== version);
        checks.push({
          id: 'member-configs',
          ok: behind.length === 0,
          saw: modes.map(({ member, configVersion }) => `${member.id} ${configVersion === null ? 'no conf' : `v${configVersion}`}`).join(', '),
          at,
        });
        const leader = modes.find((m) => m.mode === 'leader')?.member;
        const voters = config.members.filter((m) => m.role === 'participant').length;
        const mntr = leader && leader.clientPort !== null ? await this.ask(leader.clientHost ?? leader.host, leader.clientPort, 'mntr') : null;
        const synced = mntr === null ? null : Number(parseMntr(mntr).get('synced_followers'));
        checks.push({
          id: 'synced-followers',
          ok: synced !== null && synced >= voters - 1,
          saw: leader ? `leader ${leader.id}: ${synced ?? 'no mntr'} synced followers, ${voters - 1} voting followers configured` : 'no member leads',
          at,
        });
        const quorum = summarizeQuorum(
          modes.map(({ member, mode }) => ({ configuredRole: member.role, state: (mode ?? 'unreachable') as EnsembleHealth['members'][number]['state'] })),
        );
        checks.push({ id: 'quorum', ok: quorum.hasQuorum && quorum.votersServing === quorum.voters, saw: quorum.sentence, at });
      } catch (error) {
        checks.push({ id: 'config', ok: false, saw: `/zookeeper/config not read: ${toOpError(error).message}`, at });
      }
      last = checks;
      if (checks.every((c) => c.ok)) return { ok: true, checks };
      onWaiting(checks);
      if (this.closed || Date.now() >= until)
        return {
          ok: false,
          checks: last,
          reason: last
            .filter((c) => !c.ok)
            .map((c) => c.saw)
            .join('; '),
        };
      await sleep(backoffDelay(round, { baseMs: 250, capMs: 1_000, jitter: [0.5, 1] }));
    }
  }

  // ---- state ----

  private commit(next: ReconfigWorkflow): void {
    if (this.closed) return;
    const prev = this.wf?.id === next.id ? this.wf : null;
    const session = this.gateway.session.sessionId;
    const stamped = {
      ...next,
      updatedAt: Date.now(),
      keeperSession: next.state === 'running' && session !== null ? session : next.keeperSession,
    };
    this.wf = stamped;
    try {
      this.store?.save(stamped);
    } catch (error) {
      this.log.error({ err: error, reconfig: stamped.id }, 'could not write the resize state file');
    }
    if (prev && prev.state !== stamped.state && stamped.state !== 'running' && stamped.state !== 'planned') {
      void this.settings
        .audit?.({
          action: 'reconfig.action',
          ensemble: stamped.ensemble,
          actor: KEEPER,
          outcome: stamped.state === 'failed' ? 'failed' : 'ok',
          ...(stamped.reason ? { note: stamped.reason } : {}),
          details: { reconfigId: stamped.id, state: stamped.state },
        })
        .catch((error: unknown) => this.log.warn({ err: error }, 'resize audit entry not written'));
    }
    for (const listener of this.listeners) listener(stamped);
  }

  private updateStep(id: string, index: number, patch: Partial<ReconfigStep>): ReconfigStep {
    const wf = this.wf!;
    if (wf.id !== id) throw new Error(`resize ${id} is no longer the current one`);
    const steps = wf.steps.map((s) => (s.index === index ? { ...s, ...patch } : s));
    this.commit({ ...wf, steps });
    return steps.find((s) => s.index === index)!;
  }

  private pause(reason: string): void {
    const wf = this.wf;
    if (!wf || isReconfigFinished(wf)) return;
    this.log.warn({ reconfig: wf.id, reason }, 'the resize paused');
    this.commit({ ...wf, state: 'paused', reason });
  }

  private fail(reason: string): void {
    const wf = this.wf;
    if (!wf || isReconfigFinished(wf)) return;
    this.log.warn({ reconfig: wf.id, reason }, 'the resize stopped');
    const steps = wf.steps.map((s) =>
      s.state === 'sending' || s.state === 'pending'
        ? { ...s, state: s.state === 'sending' ? ('failed' as const) : s.state, reason: s.state === 'sending' ? reason : s.reason }
        : s,
    );
    this.finish({ ...wf, steps }, 'failed', reason, Date.now());
  }

  private finish(wf: ReconfigWorkflow, state: 'done' | 'failed' | 'aborted', reason: string, at: number): void {
    this.commit({ ...wf, state, reason, finishedAt: at });
    void this.lock.release(wf.id).catch((error: unknown) => this.log.warn({ err: error }, 'resize lock not released (it goes with the session)'));
  }

  private audit(step: ReconfigStep, outcome: 'ok' | 'failed', error: string | null): void {
    const wf = this.wf!;
    void this.settings
      .audit?.({
        action: 'reconfig.step',
        ensemble: wf.ensemble,
        actor: KEEPER,
        outcome,
        ...(error ? { error: { code: 'RECONFIG_STEP_FAILED', message: error } } : {}),
        details: {
          reconfigId: wf.id,
          step: step.index,
          state: step.state,
          memberId: step.memberId,
          zkCli: step.zkCli,
          fromConfig: step.fromConfig,
          version: step.version,
        },
      })
      .catch((e: unknown) => this.log.warn({ err: e }, 'resize audit entry not written'));
  }

  // ---- helpers ----

  /** How to start each member to add: the configuration it joins plus itself, the ensemble's timings, the filled startCommand. */
  private async joinersOf(
    config: DynamicConfig,
    steps: readonly { kind: string; joining: string | null }[],
    health: EnsembleHealth,
  ): Promise<ReconfigWorkflow['joiners']> {
    const adds = steps.filter((s) => s.kind === 'add' && s.joining !== null).map((s) => parseDynamicConfig(s.joining!).members[0]!);
    if (adds.length === 0) return [];
    const timings = await this.timings(health);
    try {
      return adds.map((m) => joinerStart(config.members, m, timings, this.config.startCommand ?? null));
    } catch (error) {
      // The planner refuses such a host first; should one still come, the resize is refused rather than planned with a line unsafe to paste.
      if (error instanceof StartCommandError) throw new OpError('RECONFIG_REFUSED', `the resize is refused: ${error.message}`);
      throw error;
    }
  }

  /** tickTime, initLimit and syncLimit from a serving member's `conf` (one word), which a joiner must share. */
  private async timings(health: EnsembleHealth): Promise<EnsembleTimings> {
    const serving = health.members.filter((m) => m.state === 'leader' || m.state === 'follower').slice(0, 2);
    for (const m of serving) {
      const text = await this.ask(m.host, m.clientPort, 'conf');
      if (text === null) continue;
      const settings = parseConf(text).settings;
      const number = (key: string) => (/^\d+$/.test(settings.get(key) ?? '') ? Number(settings.get(key)) : null);
      return { tickTime: number('tickTime'), initLimit: number('initLimit'), syncLimit: number('syncLimit') };
    }
    return { tickTime: null, initLimit: null, syncLimit: null };
  }

  private doneCount(wf: ReconfigWorkflow): number {
    return wf.steps.filter((s) => s.state === 'done').length;
  }

  private async preflight(wf: ReconfigWorkflow, health: EnsembleHealth): Promise<ReconfigWorkflow['preflight']> {
    const gateway = await this.openStepGateway();
    try {
      const joiners = wf.steps
        .filter((s) => s.kind === 'add' && s.state === 'pending' && s.joining !== null)
        .map((s) => {
          const m = parseDynamicConfig(s.joining!).members[0]!;
          return { id: m.id, host: m.clientHost ?? m.host, clientPort: m.clientPort ?? 0 };
        });
      // The members /zookeeper/config names now: the poller learns of a change a round later (its removed members are
      // already apart from health.members, but one added by someone else a moment ago may not be polled yet).
      const configured = new Set(parseDynamicConfig((await gateway.getData(CONFIG_PATH)).data.toString('utf8')).members.map((m) => m.id));
      const current = { ...health, members: health.members.filter((m) => m.id === null || configured.has(m.id)) };
      const result = await gatherReconfigPreflight(
        {
          gateway,
          mutations: new ZkMutations(gateway),
          health: current,
          lockHolder: async () => {
            const owner = await this.lock.owner();
            const mine = this.gateway.session.sessionId;
            return owner === null || (mine !== null && normalizeSessionId(owner) === normalizeSessionId(mine)) ? null : `session ${owner}`;
          },
          ask: async (host, port, word) => {
            const text = await this.ask(host, port, word);
            if (text === null) throw new Error(`${host}:${port} did not answer ${word}`);
            return text;
          },
        },
        joiners,
        wf.steps.filter((s) => s.kind === 'remove' && s.state === 'pending').map((s) => s.memberId),
      );
      return result.checks;
    } finally {
      if (!this.running) this.closeStepGateway();
    }
  }

  /** The steps' own session: the super user's credential (reconfigAuth) only while a resize runs. */
  private async openStepGateway(): Promise<ZkGateway> {
    if (!this.stepGateway) {
      const auth = this.config.reconfigAuth ? [this.config.reconfigAuth] : (this.config.auth ?? []);
      this.stepGateway = new ZkGateway({
        name: `${this.config.name}:reconfig`,
        connectionString: this.gateway.connectionString,
        auth,
        requestDeadlineMs: 10_000,
        sessionTimeoutMs: this.gateway.session.timeoutMs,
        logger: this.log,
      });
      this.stepGateway.start();
    }
    const gateway = this.stepGateway;
    for (let i = 0; i < 100 && gateway.session.state !== 'connected' && !this.closed; i++) await sleep(100);
    if (gateway.session.state !== 'connected') throw new OpError('NOT_READY', `the resize's own session to ${this.config.name} did not connect within 10 s`);
    return gateway;
  }

  private closeStepGateway(): void {
    this.stepGateway?.close();
    this.stepGateway = null;
  }

  private async readConfig(gateway: ZkGateway): Promise<DynamicConfig> {
    const { data } = await gateway.getData(CONFIG_PATH);
    return parseDynamicConfig(data.toString('utf8'));
  }

  private async ask(host: string, port: number, word: string): Promise<string | null> {
    const answer = await fourLetterWord(host, port, word, ASK_MS);
    return answer.ok ? answer.text : null;
  }

  /** The member Keeper's everyday session is on, by its client address; null when unknown. */
  private connectedMemberId(config: DynamicConfig): number | null {
    const address = this.gateway.session.member;
    if (!address) return null;
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    const host = address.slice(0, address.lastIndexOf(':'));
    const match = config.members.filter((m) => m.clientPort === port && (m.clientHost === null || m.clientHost === host || m.host === host));
    return match.length === 1 ? match[0]!.id : null;
  }
}

function leaderIdOf(health: EnsembleHealth): number | null {
  return health.members.find((m) => m.state === 'leader')?.id ?? null;
}

/**
 * One member's step as a pure reducer: polls, the restart's start and result, clock ticks and
 * operator actions go in; the step comes out with every check recorded (time and what it saw).
 * The server owns the side effects: it issues the restart when a step is `gatesChecked`,
 * persisting `restartStarted` first so a Keeper restart never issues it twice.
 */
import type { EnsembleHealth, MemberStatus } from '../ensemble/types.js';
import { isServing } from '../ensemble/quorum.js';
import { failedGatesSentence, gatesPass, stepGates, syncedFollowersCheck, zxidCheck } from './gates.js';
import { memberIn, servesInRightRole } from './members.js';
import { baselineOf, detectRestart } from './restartEvidence.js';
import type { Check, CheckId, RestartMethod, UpgradeMode, UpgradeStep, UpgradeTimings } from './schemas.js';
import { TERMINAL_STEP_STATES } from './schemas.js';
import { latestChecks, pauseStep, record, stepTitle } from './stepRecord.js';
import { applyOperatorAction, type OperatorAction } from './stepActions.js';

export type StepEvent =
  | { type: 'poll'; at: number; health: EnsembleHealth }
  | { type: 'tick'; at: number }
  /** Written before the restart is issued. `commandLine` is the filled restartCommand, if any. */
  | { type: 'restartStarted'; at: number; method: RestartMethod; commandLine?: string | null; instruction?: string | null }
  | { type: 'restartResult'; at: number; exitCode: number | null; outputTail: string; timedOut?: boolean; processChanged?: boolean }
  /** The runner waits for the ensemble's upgrade lock before this restart (ok: it has it now). */
  | { type: 'lockWait'; at: number; ok: boolean; saw: string }
  | OperatorAction;

export interface StepContext {
  timings: UpgradeTimings;
  targetVersion: string | null;
  /** The leader's zxid at the previous poll (see GateContext). */
  referenceLeaderZxid: string | null;
  outageConfirmed: boolean;
  /** In a full restart the members go down together: once the gates passed, they are not checked again. */
  mode: UpgradeMode;
}

export const isTerminal = (step: UpgradeStep): boolean => TERMINAL_STEP_STATES.includes(step.state);

/** Make it the current step: the gates get `gatesWithinMs` to pass. */
export function activateStep(step: UpgradeStep, at: number, timings: UpgradeTimings): UpgradeStep {
  if (step.state !== 'pending' || step.startedAt !== null) return step;
  return { ...step, startedAt: at, deadlineAt: at + timings.gatesWithinMs };
}

/** Whether the version matches the target: a plain "3.8.0" or any part of the string ("built on 2024-12-29"). */
export function versionMatches(version: string | null, target: string): boolean {
  return version !== null && version.includes(target);
}

function syncChecks(step: UpgradeStep, health: EnsembleHealth, member: MemberStatus, at: number, ctx: StepContext): Check[] {
  const checks = [syncedFollowersCheck(health, at), zxidCheckFor(step, health, at, ctx)];
  if (ctx.targetVersion !== null) {
    const version = member.metrics.version;
    const ok = versionMatches(version, ctx.targetVersion);
    checks.push({ id: 'version-matches', ok, saw: `runs "${version ?? 'unknown'}"${ok ? ', the target' : `, not the target "${ctx.targetVersion}"`}`, at });
  }
  return checks;
}

function zxidCheckFor(step: UpgradeStep, health: EnsembleHealth, at: number, ctx: StepContext): Check {
  // A leader (or a standalone server) has no one to catch up with: its zxid is the reference.
  const state = health.members.find((m) => m.address === step.address)?.state;
  if (state === 'leader' || state === 'standalone') {
    return { id: 'zxid-caught-up', ok: true, saw: `${state === 'leader' ? 'it leads' : 'it runs standalone'}: its zxid is the reference`, at };
  }
  return zxidCheck(health, at, ctx.referenceLeaderZxid, step.address);
}

const GATE_IDS: readonly CheckId[] = ['member-present', 'voters-serving', 'synced-followers', 'zxid-caught-up', 'members-answer', 'tolerates-failure'];
const SYNC_IDS: readonly CheckId[] = ['synced-followers', 'zxid-caught-up', 'version-matches'];
const latestOf = (step: UpgradeStep, ids: readonly CheckId[]) => latestChecks(step).filter((c) => ids.includes(c.id));

function timeoutReason(step: UpgradeStep, member: MemberStatus | null, ctx: StepContext): string {
  const who = stepTitle(step);
  const seen = member ? `last seen ${member.state}${member.detail ? ` (${member.detail})` : ''}` : 'no poll answered since';
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  switch (step.state) {
    case 'pending':
      return `The gates did not pass within ${s(ctx.timings.gatesWithinMs)} before restarting ${who}: ${failedGatesSentence(latestOf(step, GATE_IDS)) || seen}`;
    case 'restarting': {
      const uptime = member?.metrics.uptimeSeconds ?? null;
      return `${who} did not go down or restart within ${s(ctx.timings.wentDownWithinMs)} of the restart: ${seen}${uptime !== null ? `, uptime ${uptime} s` : ''}`;
    }
    case 'wentDown':
      return `${who} did not come back within ${s(ctx.timings.backWithinMs)}: ${seen}. Nothing else is restarted until it serves.`;
    case 'back':
      return `${who} serves again but did not sync within ${s(ctx.timings.syncedWithinMs)}: ${failedGatesSentence(latestOf(step, SYNC_IDS)) || seen}`;
    default:
      return `${who} timed out: ${seen}`;
  }
}

function toWentDown(step: UpgradeStep, at: number, saw: string, evidence: UpgradeStep['evidence'], ctx: StepContext): UpgradeStep {
  return {
    ...record(step, { id: 'went-down', ok: true, saw, at }),
    state: 'wentDown',
    evidence: step.evidence ?? evidence,
    phases: { ...step.phases, wentDown: step.phases.wentDown ?? at },
    deadlineAt: at + ctx.timings.backWithinMs,
    settleUntil: null,
  };
}

function onPoll(step: UpgradeStep, health: EnsembleHealth, at: number, ctx: StepContext): UpgradeStep {
  const member = memberIn(health, step.address);
  if (!member) {
    const reason = `${stepTitle(step)} is no longer in the ensemble's configuration`;
    return { ...record(step, { id: 'member-present', ok: false, saw: reason, at }), state: 'failed', reason, finishedAt: at, deadlineAt: null };
  }
  let s = step;
  if (s.state === 'pending' || (s.state === 'gatesChecked' && ctx.mode === 'rolling')) {
    const gates = stepGates(health, step, { at, referenceLeaderZxid: ctx.referenceLeaderZxid, outageConfirmed: ctx.outageConfirmed });
    s = { ...record(s, ...gates), baseline: baselineOf(member) };
    if (gatesPass(gates)) {
      if (s.state === 'pending') s = { ...s, state: 'gatesChecked', phases: { ...s.phases, gatesChecked: at }, deadlineAt: null };
    } else if (s.state === 'gatesChecked') {
      // Never restart a member while the ensemble is not whole: back to waiting on the gates.
      s = { ...s, state: 'pending', deadlineAt: at + ctx.timings.gatesWithinMs };
    }
  }
  if (s.state === 'restarting' && s.baseline) {
    const finding = detectRestart(s.baseline, member);
    if (finding) s = toWentDown(s, at, finding.saw, finding.evidence, ctx);
  }
  if (s.state === 'wentDown' && isServing(member)) {
    if (servesInRightRole(s.role, member.state)) {
      s = {
        ...record(s, { id: 'back-serving', ok: true, saw: `serving again as ${member.state}`, at }),
        state: 'back',
        phases: { ...s.phases, back: at },
        deadlineAt: at + ctx.timings.syncedWithinMs,
      };
    } else {
      s = record(s, {
        id: 'back-serving',
        ok: false,
        saw: `serving as ${member.state}, expected ${s.role === 'observer' ? 'observer' : 'follower or leader'}`,
        at,
      });
    }
  }
  if ((s.state === 'back' || s.state === 'settling') && !(isServing(member) && servesInRightRole(s.role, member.state))) {
    s = toWentDown(s, at, `went ${member.state} again after serving${member.detail ? ` (${member.detail})` : ''}`, 'seen-down', ctx);
  }
  if (s.state === 'back') {
    const checks = syncChecks(s, health, member, at, ctx);
    s = record(s, ...checks);
    if (gatesPass(checks)) {
      s = { ...s, state: 'settling', phases: { ...s.phases, synced: at }, settleUntil: at + ctx.timings.settleMs, deadlineAt: null };
    }
  }
  if (s.state === 'settling' && s.settleUntil !== null && at >= s.settleUntil) {
    s = {
      ...record(s, { id: 'settled', ok: true, saw: `still serving as ${member.state} after ${Math.round(ctx.timings.settleMs / 1000)} s`, at }),
      state: 'done',
      finishedAt: at,
      settleUntil: null,
    };
  }
  return checkDeadline(s, at, member, ctx);
}

function checkDeadline(step: UpgradeStep, at: number, member: MemberStatus | null, ctx: StepContext): UpgradeStep {
  if (step.deadlineAt === null || at < step.deadlineAt || isTerminal(step) || step.state === 'paused') return step;
  return pauseStep(step, at, timeoutReason(step, member, ctx));
}

function onRestartStarted(step: UpgradeStep, event: Extract<StepEvent, { type: 'restartStarted' }>, ctx: StepContext): UpgradeStep {
  if (step.state !== 'gatesChecked') return step;
  const how =
    event.method === 'command'
      ? `ran the restartCommand: ${event.commandLine ?? ''}`
      : event.method === 'sandbox'
        ? "asked the sandbox's own restarter"
        : (event.instruction ?? 'asked the operator to restart it');
  return {
    ...record(step, { id: 'restart-command', ok: true, saw: how, at: event.at }),
    state: 'restarting',
    restartRequestedAt: event.at,
    restartMethod: event.method,
    command: event.method === 'command' ? { line: event.commandLine ?? null, exitCode: null, outputTail: '' } : step.command,
    phases: { ...step.phases, restarting: event.at },
    deadlineAt: event.at + ctx.timings.wentDownWithinMs,
  };
}

function onRestartResult(step: UpgradeStep, event: Extract<StepEvent, { type: 'restartResult' }>, ctx: StepContext): UpgradeStep {
  if (step.restartRequestedAt === null || isTerminal(step)) return step;
  const command = { line: step.command?.line ?? null, exitCode: event.exitCode, outputTail: event.outputTail };
  const lastLine = event.outputTail.trim().split('\n').pop() ?? '';
  const failed = event.timedOut === true || event.exitCode !== 0;
  const saw = event.timedOut
    ? `the restart did not finish before its deadline${lastLine ? `: ${lastLine}` : ''}`
    : `the restart exited ${event.exitCode ?? 'without a code'}${lastLine ? `: ${lastLine}` : ''}`;
  let s: UpgradeStep = { ...record(step, { id: 'restart-command', ok: !failed, saw, at: event.at }), command };
  if (failed) return pauseStep(s, event.at, `The restart of ${stepTitle(step)} failed: ${saw}`, 'restart-command');
  if (event.processChanged && s.state === 'restarting') s = toWentDown(s, event.at, 'the restarter saw a new process', 'process-changed', ctx);
  return s;
}

export function stepReducer(step: UpgradeStep, event: StepEvent, ctx: StepContext): UpgradeStep {
  switch (event.type) {
    case 'poll':
      if (isTerminal(step) || step.state === 'paused') return step;
      return onPoll(step, event.health, event.at, ctx);
    case 'tick':
      return checkDeadline(step, event.at, null, ctx);
    case 'restartStarted':
      return onRestartStarted(step, event, ctx);
    case 'restartResult':
      return onRestartResult(step, event, ctx);
    case 'lockWait':
      // Only recorded: the restart itself still goes through restartStarted's door.
      return step.state === 'gatesChecked' ? record(step, { id: 'upgrade-lock', ok: event.ok, saw: event.saw, at: event.at }) : step;
    case 'pause':
    case 'resume':
    case 'skip':
    case 'markDone':
      return applyOperatorAction(step, event, ctx.timings);
    default: {
      const never: never = event;
      throw new Error(`unhandled step event ${JSON.stringify(never)}`);
    }
  }
}

/**
 * One member's step as a pure reducer: polls, the restart's start and result, clock ticks and
 * operator actions go in; the step comes out with every check recorded (time and what it saw).
 * The server owns the side effects: it issues the restart when a step is `gatesChecked`,
 * persisting `restartStarted` first so a Keeper restart never issues it twice.
 */
import type { EnsembleHealth, MemberStatus } from '../ensemble/types.js';
import { isServing } from '../ensemble/quorum.js';
import { failedGatesSentence, gatesPass, stepGates, syncedFollowersCheck, zxidCheck } from './gates.js';
import { offTargetWords, versionMatches } from './builds.js';
import { memberIn, memberName, servesInRightRole } from './members.js';
import { baselineOf, detectRestart } from './restartEvidence.js';
import type { Check, CheckId, CommandProcess, RestartMethod, UpgradeMode, UpgradeStep, UpgradeTimings } from './schemas.js';
import { TERMINAL_STEP_STATES } from './schemas.js';
import { latestChecks, pauseStep, record, stepTitle } from './stepRecord.js';
import { applyOperatorAction, type OperatorAction } from './stepActions.js';

export type StepEvent =
  | { type: 'poll'; at: number; health: EnsembleHealth }
  | { type: 'tick'; at: number }
  /**
   * Written before the restart is issued. `commandLine` is the filled restartCommand, if any, and
   * `commandDeadlineAt` when it is killed if still running.
   */
  | { type: 'restartStarted'; at: number; method: RestartMethod; commandLine?: string | null; commandDeadlineAt?: number | null; instruction?: string | null }
  /** The command's process, once spawned: a Keeper started again while it runs waits for it (resume.ts). */
  | { type: 'restartProcess'; at: number; process: CommandProcess }
  /**
   * How the restart ended. `inherited`: a command started by a previous Keeper process, ended by
   * this one at its deadline (its exit code and output went with the process that started it).
   */
  | { type: 'restartResult'; at: number; exitCode: number | null; outputTail: string; timedOut?: boolean; processChanged?: boolean; inherited?: boolean }
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

function syncChecks(step: UpgradeStep, health: EnsembleHealth, at: number, ctx: StepContext): Check[] {
  return [syncedFollowersCheck(health, at), zxidCheckFor(step, health, at, ctx)];
}

/** Null without a target. A member that serves and is synced runs what it runs until it restarts again: a mismatch is final. */
function versionCheck(step: UpgradeStep, member: MemberStatus, at: number, ctx: StepContext): Check | null {
  if (ctx.targetVersion === null) return null;
  const version = member.metrics.version;
  if (versionMatches(version, ctx.targetVersion)) return { id: 'version-matches', ok: true, saw: `runs "${version}", the target`, at };
  return { id: 'version-matches', ok: false, saw: `${memberName(step)} serves and is synced, but ${offTargetWords(version, ctx.targetVersion)}`, at };
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
const SYNC_IDS: readonly CheckId[] = ['synced-followers', 'zxid-caught-up'];
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
    const checks = syncChecks(s, health, at, ctx);
    s = record(s, ...checks);
    const version = gatesPass(checks) ? versionCheck(s, member, at, ctx) : null;
    if (version && !version.ok) {
      // Synced, but not what was asked for: restart it again, skip it or abort; waiting changes nothing.
      return pauseStep({ ...s, phases: { ...s.phases, synced: at } }, at, `${version.saw}. Restart it again, skip it, or abort.`, 'version-matches');
    }
    if (gatesPass(checks)) {
      if (version) s = record(s, version);
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
  // The command line stays out of the words: they reach viewers; the line itself is for admins (withheldCommands).
  const how =
    event.method === 'command'
      ? 'ran the restartCommand'
      : event.method === 'sandbox'
        ? "asked the sandbox's own restarter"
        : (event.instruction ?? 'asked the operator to restart it');
  return {
    ...record(step, { id: 'restart-command', ok: true, saw: how, at: event.at }),
    state: 'restarting',
    restartRequestedAt: event.at,
    restartMethod: event.method,
    command:
      event.method === 'command'
        ? { line: event.commandLine ?? null, exitCode: null, outputTail: '', deadlineAt: event.commandDeadlineAt ?? null, process: null, withheld: false }
        : step.command,
    phases: { ...step.phases, restarting: event.at },
    deadlineAt: event.at + ctx.timings.wentDownWithinMs,
  };
}

function onRestartResult(step: UpgradeStep, event: Extract<StepEvent, { type: 'restartResult' }>, ctx: StepContext): UpgradeStep {
  if (step.restartRequestedAt === null || isTerminal(step)) return step;
  const command = {
    line: step.command?.line ?? null,
    deadlineAt: step.command?.deadlineAt ?? null,
    process: step.command?.process ?? null,
    withheld: false,
    exitCode: event.exitCode,
    outputTail: event.outputTail,
  };
  // A configured command's output may hold what its author keeps secret: only its exit code goes into the words.
  // The sandbox's restarter speaks Keeper's own words, which may be said.
  const lastLine = step.restartMethod === 'command' ? '' : (event.outputTail.trim().split('\n').pop() ?? '');
  const failed = event.timedOut === true || event.exitCode !== 0;
  const saw = event.inherited
    ? 'the restart command started by the previous Keeper process was still running at its deadline: its process group was killed'
    : event.timedOut
      ? `the restart did not finish before its deadline${lastLine ? `: ${lastLine}` : ''}`
      : `the restart exited ${event.exitCode ?? 'without a code'}${lastLine ? `: ${lastLine}` : ''}`;
  let s: UpgradeStep = { ...record(step, { id: 'restart-command', ok: !failed, saw, at: event.at }), command };
  if (failed) return pauseStep(s, event.at, `The restart of ${stepTitle(step)} failed: ${saw}`, 'restart-command');
  if (event.processChanged && s.state === 'restarting') s = toWentDown(s, event.at, 'the restarter saw a new process', 'process-changed', ctx);
  return s;
}

/**
 * A step paused before its restart was seen (the restart timed out, its command failed, or Keeper
 * came back not knowing) keeps looking for it: a command that outlived a killed Keeper, or a
 * person, may restart the member later. When a trace shows, the step goes on by itself.
 */
function watchWhilePaused(step: UpgradeStep, health: EnsembleHealth, at: number, ctx: StepContext): UpgradeStep {
  const lastPause = [...step.checks].reverse().find((c) => !c.ok);
  if (step.pausedFrom !== 'restarting' || step.restartRequestedAt === null || !step.baseline || lastPause?.id === 'operator') return step;
  const member = memberIn(health, step.address);
  const finding = member ? detectRestart(step.baseline, member) : null;
  if (!finding) return step;
  const unpaused: UpgradeStep = { ...step, state: 'restarting', pausedFrom: null, reason: null };
  return toWentDown(unpaused, at, `${finding.saw}: the restart happened after the pause, so the step goes on`, finding.evidence, ctx);
}

export function stepReducer(step: UpgradeStep, event: StepEvent, ctx: StepContext): UpgradeStep {
  switch (event.type) {
    case 'poll':
      if (isTerminal(step)) return step;
      if (step.state === 'paused') return watchWhilePaused(step, event.health, event.at, ctx);
      return onPoll(step, event.health, event.at, ctx);
    case 'tick':
      return checkDeadline(step, event.at, null, ctx);
    case 'restartStarted':
      return onRestartStarted(step, event, ctx);
    case 'restartResult':
      return onRestartResult(step, event, ctx);
    case 'restartProcess':
      return step.command && step.restartRequestedAt !== null ? { ...step, command: { ...step.command, process: event.process } } : step;
    case 'lockWait':
      // Only recorded: the restart itself still goes through restartStarted's door.
      return step.state === 'gatesChecked' ? record(step, { id: 'upgrade-lock', ok: event.ok, saw: event.saw, at: event.at }) : step;
    case 'pause':
    case 'resume':
    case 'skip':
    case 'markDone':
    case 'restartAgain':
      return applyOperatorAction(step, event, ctx.timings);
    default: {
      const never: never = event;
      throw new Error(`unhandled step event ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The Upgrades view's words and tones, in one place so the headline, the timeline and the history
 * agree. Tones keep their one meaning: live is healthy or finished well, degraded is a member out
 * of service, a pause or an upgrade done with exceptions (never green), lost is a failure, stale
 * is not started or set aside.
 */
import type { CheckId, RestartEvidence, StepState, UpgradeState, UpgradeWorkflow } from '@keeper/shared';
import type { Tone } from '../../ui/tone';

export const UPGRADE_TONE: Record<UpgradeState, Tone> = {
  planned: 'stale',
  running: 'live',
  paused: 'degraded',
  done: 'live',
  doneWithExceptions: 'degraded',
  failed: 'lost',
  aborted: 'stale',
};

export const UPGRADE_WORD: Record<UpgradeState, string> = {
  planned: 'planned',
  running: 'running',
  paused: 'paused',
  done: 'done',
  doneWithExceptions: 'done with exceptions',
  failed: 'failed',
  aborted: 'aborted',
};

/** The state in the operator's words: an upgrade set aside before it started was discarded, not aborted. */
export function upgradeWord(u: Pick<UpgradeWorkflow, 'state' | 'startedAt'>): string {
  return u.state === 'aborted' && u.startedAt === null ? 'discarded' : UPGRADE_WORD[u.state];
}

export const STEP_WORD: Record<StepState, string> = {
  pending: 'waiting',
  gatesChecked: 'gates passed',
  restarting: 'restarting',
  wentDown: 'restarted',
  back: 'back, syncing',
  settling: 'settling',
  done: 'done',
  paused: 'paused',
  failed: 'failed',
  skipped: 'skipped',
};

export const STEP_TONE: Record<StepState, Tone> = {
  pending: 'stale',
  gatesChecked: 'live',
  restarting: 'degraded',
  wentDown: 'degraded',
  back: 'live',
  settling: 'live',
  done: 'live',
  paused: 'degraded',
  failed: 'lost',
  skipped: 'stale',
};

export const CHECK_LABEL: Record<CheckId, string> = {
  'voters-serving': 'voters serving',
  'synced-followers': 'synced followers',
  'zxid-caught-up': 'zxid caught up',
  'members-answer': 'members answer',
  'tolerates-failure': 'tolerates a failure',
  'member-present': 'in the configuration',
  'restart-command': 'restart',
  'went-down': 'restart seen',
  'back-serving': 'back serving',
  'version-matches': 'version',
  settled: 'settled',
  operator: 'operator',
  timeout: 'timed out',
  resume: 'resumed',
  'upgrade-lock': 'upgrade lock',
  'restart-process': 'restart command',
  recheck: 'checked again',
  handover: 'taken over',
};

/** How Keeper knew the member restarted: a fast restart may never look down. */
export const EVIDENCE_WORDS: Record<RestartEvidence, string> = {
  'seen-down': 'seen down',
  'uptime-reset': 'uptime went back to 0',
  'counters-reset': 'packet counters went back to 0',
  'version-changed': 'its version changed',
  'process-changed': 'its process changed',
  'operator-confirmed': 'marked done by an operator',
};

export const METHOD_WORDS: Record<UpgradeWorkflow['restartMethod'], string> = {
  command: 'the restartCommand from the config file',
  sandbox: 'the sandbox restarts its own members',
  manual: 'manual: you restart each member when asked',
};

export const isActive = (wf: Pick<UpgradeWorkflow, 'state'>): boolean => wf.state === 'planned' || wf.state === 'running' || wf.state === 'paused';

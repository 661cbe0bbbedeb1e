/**
 * The resize's words and tones, in one place so the plan, the run, the sizing summary and the
 * history agree. Tones keep their one meaning: live is healthy or finished well, degraded a pause,
 * lost a failure, stale not started or set aside.
 */
import type { ReconfigState, ReconfigStep, ReconfigWorkflow } from '@keeper/shared';
import type { Tone } from '../../../ui/tone';

export const RESIZE_TONE: Record<ReconfigState, Tone> = {
  planned: 'stale',
  running: 'live',
  paused: 'degraded',
  done: 'live',
  failed: 'lost',
  aborted: 'stale',
};

export const STEP_WORD: Record<ReconfigStep['state'], string> = {
  pending: 'waiting',
  sending: 'sent',
  verifying: 'verifying',
  done: 'verified',
  failed: 'failed',
};

export const STEP_TONE: Record<ReconfigStep['state'], Tone> = {
  pending: 'stale',
  sending: 'degraded',
  verifying: 'degraded',
  done: 'live',
  failed: 'lost',
};

/** Each check's name, in the operator's words; a member to add is `joiner-<id>`. */
export function checkLabel(id: string): string {
  const joiner = /^joiner-(\d+)$/.exec(id);
  if (joiner) return `member ${joiner[1]} ready`;
  return CHECK_LABEL[id] ?? id;
}

const CHECK_LABEL: Record<string, string> = {
  'dynamic-config': 'dynamic config',
  'reconfig-right': 'right to reconfig',
  'voters-serving': 'voters serving',
  'synced-followers': 'synced followers',
  'no-workflow': 'no other workflow',
  config: '/zookeeper/config',
  roles: 'roles',
  'member-configs': 'each member applied it',
  quorum: 'quorum',
};

export const isActive = (wf: Pick<ReconfigWorkflow, 'state'>): boolean => wf.state === 'planned' || wf.state === 'running' || wf.state === 'paused';

/** A plan set aside before any step was sent: the server records it as aborted, the operator discarded it. */
export const wasDiscarded = (wf: Pick<ReconfigWorkflow, 'state' | 'steps'>): boolean => wf.state === 'aborted' && wf.steps.every((s) => s.state === 'pending');

/** The state in the operator's words: "discarded" for a plan never started, else the state itself. */
export const stateWord = (wf: Pick<ReconfigWorkflow, 'state' | 'steps'>): string => (wasDiscarded(wf) ? 'discarded' : wf.state);

/** Steps verified, of all. */
export function stepsDone(wf: ReconfigWorkflow): number {
  return wf.steps.filter((s) => s.state === 'done').length;
}

/** "step 2 of 3: reconfig -add server.5=… (verifying)" for the running one, else the outcome. */
export function progressSentence(wf: ReconfigWorkflow): string {
  const total = wf.steps.length;
  const done = stepsDone(wf);
  switch (wf.state) {
    case 'planned':
      return `planned: ${total} ${total === 1 ? 'step' : 'steps'}, none sent yet`;
    case 'done':
      return `done: all ${total} ${total === 1 ? 'step' : 'steps'} verified`;
    case 'aborted':
      if (wasDiscarded(wf)) return `discarded: ${total} ${total === 1 ? 'step' : 'steps'}, none sent`;
      return `aborted after ${done} of ${total} ${total === 1 ? 'step' : 'steps'}`;
    case 'failed':
      return `failed after ${done} of ${total} ${total === 1 ? 'step' : 'steps'}`;
    case 'running':
    case 'paused': {
      const current = wf.steps.find((s) => s.state !== 'done');
      const where = current ? `step ${current.index} of ${total}, ${STEP_WORD[current.state]}` : `${done} of ${total} verified`;
      return `${wf.state === 'paused' ? 'paused at ' : ''}${where}`;
    }
  }
}

/** The id as a reader can say it: the first 8 characters of the UUID. */
export const shortId = (id: string): string => id.slice(0, 8);

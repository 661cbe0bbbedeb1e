/**
 * An upgrade workflow kept in the home ensemble must fit one value (64 KiB, well under
 * jute.maxbuffer). Most are a few KiB; a long one on a big ensemble can grow past it through its
 * restart commands' output (4 KiB each) and its steps' checks (up to 300 each, when a gate flaps).
 * Past the cap, what matters least goes first, in this order, until it fits: the output of
 * finished steps' commands, then every command's output down to its last 512 characters, then
 * each step's oldest checks (the newest 100, 30, then 10 kept). What the steps are, their phases,
 * requests and outcomes are never dropped: a replica that takes over reads them to run nothing twice.
 */
import type { UpgradeStep, UpgradeWorkflow } from '@keeper/shared';

const bytesOf = (wf: UpgradeWorkflow): number => Buffer.byteLength(JSON.stringify(wf), 'utf8');

const finishedStep = (s: UpgradeStep): boolean => s.state === 'done' || s.state === 'skipped' || s.state === 'failed';

function withOutput(wf: UpgradeWorkflow, which: (s: UpgradeStep) => boolean, keep: number): UpgradeWorkflow {
  return {
    ...wf,
    steps: wf.steps.map((s) =>
      s.command && which(s) && s.command.outputTail.length > keep
        ? { ...s, command: { ...s.command, outputTail: keep === 0 ? '' : `…${s.command.outputTail.slice(-keep)}` } }
        : s,
    ),
  };
}

const withChecks = (wf: UpgradeWorkflow, keep: number): UpgradeWorkflow => ({
  ...wf,
  steps: wf.steps.map((s) => (s.checks.length > keep ? { ...s, checks: s.checks.slice(-keep) } : s)),
});

/** The workflow as stored: itself when it fits in `maxBytes`, else trimmed as above; null when even that does not fit. */
export function fitWorkflow(wf: UpgradeWorkflow, maxBytes: number): UpgradeWorkflow | null {
  if (bytesOf(wf) <= maxBytes) return wf;
  const trims: ((w: UpgradeWorkflow) => UpgradeWorkflow)[] = [
    (w) => withOutput(w, finishedStep, 0),
    (w) => withOutput(w, () => true, 512),
    (w) => withChecks(w, 100),
    (w) => withChecks(w, 30),
    (w) => withChecks(w, 10),
  ];
  let out = wf;
  for (const trim of trims) {
    out = trim(out);
    if (bytesOf(out) <= maxBytes) return out;
  }
  return null;
}

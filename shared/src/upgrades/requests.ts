/**
 * The Upgrades API's bodies and answers (issue 13, item 7), for the routes table and the live
 * `upgrade` topic:
 *   POST /api/ensembles/<name>/upgrades                     upgradeCreateBodySchema -> upgradeAnswerSchema
 *   GET  /api/ensembles/<name>/upgrades                     upgradeListAnswerSchema
 *   GET  /api/ensembles/<name>/upgrades/<id>                upgradeAnswerSchema
 *   POST /api/ensembles/<name>/upgrades/<id>/{start|pause|resume|abort}   upgradeActionBodySchema
 *   POST /api/ensembles/<name>/upgrades/<id>/steps/<address>/{skip|markDone|restartAgain}  upgradeStepActionBodySchema
 * Non-admins get every answer through withheldCommands: a restart's outcome and exit code, never its command or output.
 */
import { z } from 'zod/mini';
import { upgradeModeSchema, upgradeProgressSchema, upgradeStateSchema, upgradeWorkflowSchema, type UpgradeWorkflow } from './schemas.js';

const text = (max: number) => z.string().check(z.trim(), z.maxLength(max));

export const upgradeCreateBodySchema = z.strictObject({
  mode: z._default(upgradeModeSchema, 'rolling'),
  /** "3.8.0", or a part of the version string such as "built on 2024-12-29". */
  targetVersion: z.optional(text(200).check(z.minLength(1))),
  /** What changes, for the audit trail and the history ("raise maxClientCnxns to 120"). */
  note: z.optional(text(2000)),
  /** Start at once when the preflight passes; otherwise it stays `planned`. */
  start: z.optional(z.boolean()),
  /** The plan's phrase, when it asks for one (an outage). */
  confirmation: z.optional(text(200)),
});
export type UpgradeCreateBody = z.infer<typeof upgradeCreateBodySchema>;

export const UPGRADE_ACTIONS = ['start', 'pause', 'resume', 'abort'] as const;
export const upgradeActionSchema = z.enum(UPGRADE_ACTIONS);
export type UpgradeAction = z.infer<typeof upgradeActionSchema>;

export const upgradeActionBodySchema = z.strictObject({
  /** For `start`: the outage phrase when the plan asks for one. */
  confirmation: z.optional(text(200)),
  /** For `pause` and `abort`: said in the alert and the audit trail. */
  reason: z.optional(text(500)),
});
export type UpgradeActionBody = z.infer<typeof upgradeActionBodySchema>;

export const UPGRADE_STEP_ACTIONS = ['skip', 'markDone', 'restartAgain'] as const;
export const upgradeStepActionSchema = z.enum(UPGRADE_STEP_ACTIONS);
export type UpgradeStepAction = z.infer<typeof upgradeStepActionSchema>;

/** For `skip`, `confirmation` must be the step's phrase ("skip member 2"). */
export const upgradeStepActionBodySchema = z.strictObject({ confirmation: z.optional(text(200)) });
export type UpgradeStepActionBody = z.infer<typeof upgradeStepActionBodySchema>;

/** The workflow as stored, plus its progress at the time of the answer. */
export const upgradeAnswerSchema = z.extend(upgradeWorkflowSchema, { progress: upgradeProgressSchema });
export type UpgradeAnswer = z.infer<typeof upgradeAnswerSchema>;

/** One line of the history list. */
export const upgradeSummarySchema = z.object({
  id: z.string(),
  state: upgradeStateSchema,
  mode: upgradeModeSchema,
  targetVersion: z.nullable(z.string()),
  note: z.nullable(z.string()),
  createdAt: z.number(),
  createdBy: z.nullable(z.string()),
  startedAt: z.nullable(z.number()),
  finishedAt: z.nullable(z.number()),
  reason: z.nullable(z.string()),
  steps: z.number(),
  stepsDone: z.number(),
});
export type UpgradeSummary = z.infer<typeof upgradeSummarySchema>;

export const upgradeListAnswerSchema = z.object({ ensemble: z.string(), upgrades: z.array(upgradeSummarySchema) });
export type UpgradeListAnswer = z.infer<typeof upgradeListAnswerSchema>;

export function summarizeUpgrade(wf: UpgradeWorkflow): UpgradeSummary {
  return {
    id: wf.id,
    state: wf.state,
    mode: wf.mode,
    targetVersion: wf.targetVersion,
    note: wf.note,
    createdAt: wf.createdAt,
    createdBy: wf.createdBy,
    startedAt: wf.startedAt,
    finishedAt: wf.finishedAt,
    reason: wf.reason,
    steps: wf.steps.length,
    stepsDone: wf.steps.filter((s) => s.state === 'done').length,
  };
}

/** Words an older Keeper wrote with a configured command's output after them (the command's exit, then its last line). */
const OUTPUT_AFTER = /(the restart exited (?:-?\d+|without a code)|the restart did not finish before its deadline): [\s\S]*$/;

/**
 * What a non-admin (a viewer, a share link) may read of an upgrade: each restart's outcome and
 * exit code, never the command line (which may carry a token), its output or its process. Texts
 * that an older Keeper wrote with the line or the output in them are cut the same way.
 */
export function withheldCommands<T extends UpgradeWorkflow>(wf: T): T {
  const lines = wf.steps.map((s) => s.command?.line).filter((l): l is string => typeof l === 'string' && l !== '');
  const scrub = (text: string): string => {
    let out = text;
    for (const line of lines) out = out.split(line).join('(the restart command)');
    return wf.restartMethod === 'command' ? out.replace(OUTPUT_AFTER, '$1') : out;
  };
  const scrubNullable = (text: string | null) => (text === null ? null : scrub(text));
  return {
    ...wf,
    reason: scrubNullable(wf.reason),
    steps: wf.steps.map((s) => ({
      ...s,
      reason: scrubNullable(s.reason),
      checks: s.checks.map((c) => ({ ...c, saw: scrub(c.saw) })),
      // The sandbox's restarter has no configured command: its words are Keeper's own.
      command:
        s.command && s.restartMethod === 'command'
          ? { line: null, exitCode: s.command.exitCode, outputTail: '', deadlineAt: s.command.deadlineAt, process: null, withheld: true }
          : s.command,
    })),
  };
}

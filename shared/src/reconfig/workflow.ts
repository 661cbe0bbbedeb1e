/**
 * The resize workflow (issue 24 items 2 and 4, docs/design/reconfig.md): its durable form, the API's
 * bodies and answers, for the routes table, the `reconfig` topic and the state files.
 *   POST /api/ensembles/<name>/reconfig                         reconfigCreateBodySchema -> reconfigWorkflowSchema (201)
 *   GET  /api/ensembles/<name>/reconfig                         reconfigListAnswerSchema
 *   GET  /api/ensembles/<name>/reconfig/<id>                    reconfigWorkflowSchema
 *   POST /api/ensembles/<name>/reconfig/<id>/{start|pause|resume|abort}   reconfigActionBodySchema
 * Nothing in it is secret (the super user's credential stays in the server's configuration), so
 * viewers read the same workflow admins do.
 */
import { z } from 'zod/mini';
import { joinerStartSchema } from './joiners.js';

const text = (max: number) => z.string().check(z.trim(), z.maxLength(max));

/** Bounds of one request: more members than any ensemble has, lines longer than any address. */
export const RECONFIG_MAX_MEMBERS = 32;

export const reconfigCreateBodySchema = z.strictObject({
  /** `server.N=host:quorumPort:electionPort[:role];[clientHost:]clientPort` lines. */
  add: z.optional(z.array(text(300).check(z.minLength(1))).check(z.maxLength(RECONFIG_MAX_MEMBERS))),
  /** Member ids ("3"). */
  remove: z.optional(z.array(z.string().check(z.trim(), z.regex(/^\d{1,10}$/, 'a member id'))).check(z.maxLength(RECONFIG_MAX_MEMBERS))),
  /** Member id -> its new role. */
  roles: z.optional(
    z
      .record(z.string().check(z.regex(/^\d{1,10}$/, 'a member id')), z.enum(['participant', 'observer']))
      .check(z.refine((r) => Object.keys(r).length <= RECONFIG_MAX_MEMBERS, `at most ${RECONFIG_MAX_MEMBERS} role changes`)),
  ),
  /** Start at once when the preflight passes; otherwise it stays `planned`. */
  start: z.optional(z.boolean()),
  /** The plan's phrase, when it names a risk. */
  confirmation: z.optional(text(200)),
});
export type ReconfigCreateBody = z.infer<typeof reconfigCreateBodySchema>;

export const RECONFIG_ACTIONS = ['start', 'pause', 'resume', 'abort'] as const;
export const reconfigActionSchema = z.enum(RECONFIG_ACTIONS);
export type ReconfigAction = z.infer<typeof reconfigActionSchema>;

export const reconfigActionBodySchema = z.strictObject({
  /** For `start`: the plan's phrase when it names a risk. */
  confirmation: z.optional(text(200)),
  /** For `pause` and `abort`: said in the workflow and the audit trail. */
  reason: z.optional(text(500)),
});
export type ReconfigActionBody = z.infer<typeof reconfigActionBodySchema>;

export const RECONFIG_STATES = ['planned', 'running', 'paused', 'done', 'failed', 'aborted'] as const;
export const reconfigStateSchema = z.enum(RECONFIG_STATES);
export type ReconfigState = z.infer<typeof reconfigStateSchema>;

const ensembleSizeSchema = z.object({ voters: z.int(), observers: z.int(), tolerates: z.int(), sentence: z.string() });

const checkSchema = z.object({ id: z.string(), ok: z.boolean(), saw: z.string(), at: z.number() });

/**
 * pending: not sent; sending: written before the request goes out (a Keeper restart reads
 * /zookeeper/config before anything); verifying: applied, the members being checked; done; failed.
 */
export const reconfigStepStateSchema = z.enum(['pending', 'sending', 'verifying', 'done', 'failed']);

export const reconfigStepSchema = z.object({
  index: z.int(),
  kind: z.enum(['add', 'promote', 'demote', 'remove']),
  memberId: z.int(),
  joining: z.nullable(z.string()),
  leaving: z.nullable(z.string()),
  zkCli: z.string(),
  leader: z.boolean(),
  sentence: z.string(),
  state: reconfigStepStateSchema,
  /** The version the step was sent under (the one verified after the step before). */
  fromConfig: z.nullable(z.string()),
  /** The version the step made, as read back. */
  version: z.nullable(z.string()),
  sentAt: z.nullable(z.number()),
  doneAt: z.nullable(z.number()),
  /** How many times it was sent (a resend follows only a reply lost with the version unchanged). */
  attempts: z.int(),
  /** What the check after it saw: /zookeeper/config, the roles, each member's own configuration version (conf), the synced followers, the quorum sentence. */
  checks: z.array(checkSchema),
  reason: z.nullable(z.string()),
});
export type ReconfigStep = z.infer<typeof reconfigStepSchema>;

export const reconfigWorkflowSchema = z.object({
  id: z.string(),
  ensemble: z.string(),
  state: reconfigStateSchema,
  reason: z.nullable(z.string()),
  createdAt: z.number(),
  createdBy: z.nullable(z.string()),
  updatedAt: z.number(),
  finishedAt: z.nullable(z.number()),
  change: z.object({
    add: z.array(z.string()),
    remove: z.array(z.string()),
    roles: z.record(z.string(), z.string()),
  }),
  /** The version read at planning: the first step's condition. */
  fromConfig: z.string(),
  /** The version Keeper last verified: the next step's condition. */
  verifiedVersion: z.string(),
  sizeSentence: z.string(),
  /** The size before and after, as figures (absent in state files written before they were kept). */
  before: z._default(z.nullable(ensembleSizeSchema), null),
  after: z._default(z.nullable(ensembleSizeSchema), null),
  risks: z.array(z.object({ id: z.string(), sentence: z.string() })),
  confirmationPhrase: z.nullable(z.string()),
  confirmedBy: z.nullable(z.string()),
  preflight: z.array(checkSchema),
  steps: z.array(reconfigStepSchema),
  /** How to start each member to add (its dynamic config and zoo.cfg lines, the filled startCommand for admins). */
  joiners: z._default(z.array(joinerStartSchema), []),
  /** The Keeper session that runs it (a restarted Keeper waits for its predecessor's lock to go). */
  keeperSession: z.nullable(z.string()),
});
export type ReconfigWorkflow = z.infer<typeof reconfigWorkflowSchema>;

export const reconfigListAnswerSchema = z.object({ ensemble: z.string(), reconfigs: z.array(reconfigWorkflowSchema) });
export type ReconfigListAnswer = z.infer<typeof reconfigListAnswerSchema>;

export const isReconfigFinished = (wf: Pick<ReconfigWorkflow, 'state'>): boolean => wf.state === 'done' || wf.state === 'failed' || wf.state === 'aborted';

/**
 * The workflow as a reader sees it: a filled startCommand may hold a secret (a token in an ssh
 * line), so only admins read it, as only they read an upgrade's restart command; everyone else
 * learns that one is configured.
 */
export function reconfigForReader(wf: ReconfigWorkflow, admin: boolean): ReconfigWorkflow {
  if (admin || wf.joiners.every((j) => j.startCommand === null)) return wf;
  return { ...wf, joiners: wf.joiners.map((j) => (j.startCommand === null ? j : { ...j, startCommand: null, startCommandWithheld: true })) };
}

/**
 * The Upgrades view's contract (issue 13): what crosses the wire (the `upgrade` live topic, the
 * HTTP API) and what is written to disk as the workflow changes. One versioned schema for both,
 * so a state read back after a Keeper restart is validated like any message.
 */
import { z } from 'zod/mini';

export const UPGRADE_MODES = ['rolling', 'full'] as const;
export const upgradeModeSchema = z.enum(UPGRADE_MODES);
export type UpgradeMode = z.infer<typeof upgradeModeSchema>;

/**
 * The API's `state` words: scripts match on them. `done` means every member was checked at the
 * end and serves in its role on the target; `doneWithExceptions` that the steps ended but a member
 * was skipped, or is off target or out of its role (each named in `recheck`).
 */
export const UPGRADE_STATES = ['planned', 'running', 'paused', 'done', 'doneWithExceptions', 'failed', 'aborted'] as const;
export const upgradeStateSchema = z.enum(UPGRADE_STATES);
export type UpgradeState = z.infer<typeof upgradeStateSchema>;

/**
 * One member's step. The happy path is pending -> gatesChecked -> restarting -> wentDown ->
 * back -> settling -> done (the sync checks passing is what moves `back` to `settling`).
 * `paused` keeps the phase it left in `pausedFrom`; `skipped` needs typed confirmation;
 * `failed` means the step can no longer be carried out (the member left the configuration).
 */
export const STEP_STATES = ['pending', 'gatesChecked', 'restarting', 'wentDown', 'back', 'settling', 'done', 'paused', 'failed', 'skipped'] as const;
export const stepStateSchema = z.enum(STEP_STATES);
export type StepState = z.infer<typeof stepStateSchema>;

/** The phases a paused step can return to. */
export const STEP_PHASES = ['pending', 'gatesChecked', 'restarting', 'wentDown', 'back', 'settling'] as const;
export const stepPhaseSchema = z.enum(STEP_PHASES);
export type StepPhase = z.infer<typeof stepPhaseSchema>;

export const TERMINAL_STEP_STATES: readonly StepState[] = ['done', 'failed', 'skipped'];

/** The role a member had when the plan was made; the order is observers, followers, the leader. */
export const plannedRoleSchema = z.enum(['observer', 'follower', 'leader', 'standalone']);
export type PlannedRole = z.infer<typeof plannedRoleSchema>;

/**
 * Every check's id. The first five are the gates (preflight, and again before each member);
 * the others are what a step saw on its way.
 */
export const CHECK_IDS = [
  'voters-serving',
  'synced-followers',
  'zxid-caught-up',
  'members-answer',
  'tolerates-failure',
  'member-present',
  'restart-command',
  'went-down',
  'back-serving',
  'version-matches',
  'settled',
  'operator',
  'timeout',
  'resume',
  'upgrade-lock',
  'restart-process',
  'recheck',
  'handover',
] as const;
export const checkIdSchema = z.enum(CHECK_IDS);
export type CheckId = z.infer<typeof checkIdSchema>;

export const checkSchema = z.object({
  id: checkIdSchema,
  ok: z.boolean(),
  /** What it saw, in words with the numbers: "2 of 2 followers synced (the leader's zk_synced_followers)". */
  saw: z.string(),
  /** Epoch ms (server clock). */
  at: z.number(),
});
export type Check = z.infer<typeof checkSchema>;

/** The member as last seen before its restart: what "it restarted" is judged against. */
export const memberBaselineSchema = z.object({
  polledAt: z.number(),
  state: z.string(),
  uptimeSeconds: z.nullable(z.number()),
  version: z.nullable(z.string()),
  zxid: z.nullable(z.string()),
  packetsReceived: z.nullable(z.number()),
});
export type MemberBaseline = z.infer<typeof memberBaselineSchema>;

/** How Keeper saw that a member restarted: a fast restart may never look down. */
export const RESTART_EVIDENCE = ['seen-down', 'uptime-reset', 'counters-reset', 'version-changed', 'process-changed', 'operator-confirmed'] as const;
export const restartEvidenceSchema = z.enum(RESTART_EVIDENCE);
export type RestartEvidence = z.infer<typeof restartEvidenceSchema>;

export const RESTART_METHODS = ['command', 'sandbox', 'manual'] as const;
export const restartMethodSchema = z.enum(RESTART_METHODS);
export type RestartMethod = z.infer<typeof restartMethodSchema>;

/** The restart command's process: its own process group, which outlives a killed Keeper. */
export const commandProcessSchema = z.object({
  pid: z.int().check(z.positive()),
  /** /proc/<pid>/stat's start time (clock ticks since boot) and the boot's id: a pid reused by another process is not it. */
  startTicks: z.nullable(z.number()),
  bootId: z.nullable(z.string()),
});
export type CommandProcess = z.infer<typeof commandProcessSchema>;

/** What a step keeps of its restart command. */
export const restartCommandRecordSchema = z.object({
  /** The filled command as it ran (null when it could not be filled). */
  line: z.nullable(z.string()),
  exitCode: z.nullable(z.number()),
  outputTail: z.string(),
  /** When it is killed if still running (its start plus restartCommandTimeoutSeconds). */
  deadlineAt: z._default(z.nullable(z.number()), null),
  process: z._default(z.nullable(commandProcessSchema), null),
  /** True in answers to non-admins: the line, output and process are left out, only the exit code is told. */
  withheld: z._default(z.boolean(), false),
});
export type RestartCommandRecord = z.infer<typeof restartCommandRecordSchema>;

/** Which member, as the plan found it: what a step and the plan's order both carry. */
const memberOfPlanSchema = z.object({
  /** myid; null when the configuration does not say (then only `address` names it). */
  memberId: z.nullable(z.number()),
  /** host:clientPort, the member's stable key. */
  address: z.string(),
  host: z.string(),
  clientPort: z.number(),
  adminPort: z.nullable(z.number()),
  role: plannedRoleSchema,
});

export const stepSchema = z.extend(memberOfPlanSchema, {
  state: stepStateSchema,
  /** While paused: the phase it resumes to. */
  pausedFrom: z.nullable(stepPhaseSchema),
  /** Why it is paused or failed, as the alert says it. */
  reason: z.nullable(z.string()),
  /** When the workflow made it the current step. */
  startedAt: z.nullable(z.number()),
  finishedAt: z.nullable(z.number()),
  /** When each phase was reached (the timeline). */
  phases: z.object({
    gatesChecked: z.nullable(z.number()),
    restarting: z.nullable(z.number()),
    wentDown: z.nullable(z.number()),
    back: z.nullable(z.number()),
    synced: z.nullable(z.number()),
  }),
  /** The current phase gives up at this time (epoch ms); null when nothing is awaited. */
  deadlineAt: z.nullable(z.number()),
  /** The end of the settle time, while settling. */
  settleUntil: z.nullable(z.number()),
  baseline: z.nullable(memberBaselineSchema),
  evidence: z.nullable(restartEvidenceSchema),
  /** Set before the restart is issued (write-ahead): a restart was asked for, so resuming must never issue it blindly again. */
  restartRequestedAt: z.nullable(z.number()),
  restartMethod: z.nullable(restartMethodSchema),
  /** The restart command's exit code and the tail of its output (admins only: see withheldCommands). */
  command: z.nullable(restartCommandRecordSchema),
  checks: z.array(checkSchema),
});
export type UpgradeStep = z.infer<typeof stepSchema>;

/** How long each phase may take before the workflow pauses, and the settle time. */
export const upgradeTimingsSchema = z.object({
  /** Failing gates are re-checked on each poll for this long before the workflow pauses (a member just restarted may still be catching up). */
  gatesWithinMs: z._default(z.int().check(z.positive()), 60_000),
  /** After the restart is issued: seen down, or restarted, within this. */
  wentDownWithinMs: z._default(z.int().check(z.positive()), 90_000),
  /** After going down: serving again in the right role within this. */
  backWithinMs: z._default(z.int().check(z.positive()), 120_000),
  /** After serving again: synced within this. */
  syncedWithinMs: z._default(z.int().check(z.positive()), 60_000),
  settleMs: z._default(z.int().check(z.nonnegative()), 10_000),
});
export type UpgradeTimings = z.infer<typeof upgradeTimingsSchema>;
export const DEFAULT_TIMINGS: UpgradeTimings = upgradeTimingsSchema.parse({});

export const confirmationSchema = z.object({
  /** Why typing is required: the outage sentence. */
  why: z.string(),
  /** Exactly what to type. */
  phrase: z.string(),
});
export type Confirmation = z.infer<typeof confirmationSchema>;

export const plannedMemberSchema = z.extend(memberOfPlanSchema, {
  /** "member 2", "the leader, member 1", "observer 4". */
  label: z.string(),
});
export type PlannedMember = z.infer<typeof plannedMemberSchema>;

export const upgradePlanSchema = z.object({
  ensemble: z.string(),
  mode: upgradeModeSchema,
  targetVersion: z.nullable(z.string()),
  note: z.nullable(z.string()),
  order: z.array(plannedMemberSchema),
  /** "Order: observer 4, member 2, member 3, then the leader, member 1." */
  sentence: z.string(),
  /** The full mode's risk sentence; null for a rolling restart. */
  risk: z.nullable(z.string()),
  warnings: z.array(z.string()),
  /** Non-null when the upgrade means an outage: it goes on only after this phrase is typed. */
  confirmation: z.nullable(confirmationSchema),
});
export type UpgradePlan = z.infer<typeof upgradePlanSchema>;

export const UPGRADE_SCHEMA_VERSION = 1;

/** Sessions the leader expired since the upgrade started (sessionExpiries.ts). */
export const sessionExpiriesSchema = z.object({
  /** Every expiry the leaders counted, the previous Keeper processes' sessions included. */
  count: z.number(),
  /** Of `count`: sessions of Keeper processes that ran this upgrade and were killed (their sessions expire on their own), told apart from clients'. */
  keeper: z._default(z.number(), 0),
  /** The leader whose counter was read last, and its reading. */
  leader: z.nullable(z.string()),
  /** When that leader's process started (poll time less its uptime), to tell a restarted leader from the one before it. */
  leaderSince: z._default(z.nullable(z.number()), null),
  last: z.nullable(z.number()),
  /** Leader changes where expiries in between could not be counted. */
  gaps: z.number(),
});
export type SessionExpiries = z.infer<typeof sessionExpiriesSchema>;

/** One member as the re-check found it. */
export const memberRecheckSchema = z.object({
  memberId: z.nullable(z.number()),
  address: z.string(),
  /** Its step's state then (done, skipped). */
  step: stepStateSchema,
  /** The member's state as polled, and the version it reported. */
  state: z.string(),
  version: z.nullable(z.string()),
  /** Restarted by this upgrade, serving in its role, on the target when one was given. */
  ok: z.boolean(),
  /** "member 3 was skipped: it runs 3.8.0 built on 2023-10-30, not the target built on 2024-12-29". */
  saw: z.string(),
});
export type MemberRecheck = z.infer<typeof memberRecheckSchema>;

export const recheckSchema = z.object({
  at: z.number(),
  why: z.enum(['end', 'resume']),
  members: z.array(memberRecheckSchema),
});
export type Recheck = z.infer<typeof recheckSchema>;

/** A Keeper replica as an upgrade names it (docs/operating/replicas.md): its registry id and `<host>:<port>`. */
export const upgradeReplicaSchema = z.object({ replica: z.string().check(z.maxLength(64)), name: z.string().check(z.maxLength(300)) });
export type UpgradeReplica = z.infer<typeof upgradeReplicaSchema>;

/** One replica taking over an upgrade whose replica's session ended (handover.ts). */
export const handoverSchema = z.object({
  /** ZooKeeper's time of the new owner's znode (its ctime): when it took over. */
  at: z.number(),
  /** The replica that ran it until its session ended (null: not recorded, an upgrade begun before replicas). */
  from: z.nullable(upgradeReplicaSchema),
  to: upgradeReplicaSchema,
});
export type Handover = z.infer<typeof handoverSchema>;

/** Hand-overs kept in a workflow, the oldest dropped past it. */
export const MAX_HANDOVERS = 20;

export const upgradeWorkflowSchema = z.object({
  schemaVersion: z.literal(UPGRADE_SCHEMA_VERSION),
  id: z.string(),
  ensemble: z.string(),
  mode: upgradeModeSchema,
  targetVersion: z.nullable(z.string()),
  note: z.nullable(z.string()),
  state: upgradeStateSchema,
  /** Why it is paused, failed or aborted. */
  reason: z.nullable(z.string()),
  createdAt: z.number(),
  createdBy: z.nullable(z.string()),
  startedAt: z.nullable(z.number()),
  finishedAt: z.nullable(z.number()),
  restartMethod: restartMethodSchema,
  timings: upgradeTimingsSchema,
  plan: upgradePlanSchema,
  preflight: z.array(checkSchema),
  /** Who typed the outage confirmation, and when. */
  confirmedBy: z.nullable(z.object({ by: z.string(), at: z.number() })),
  /** The leader's zxid at the previous poll: the fair reference for "behind" while writes flow (see zxidLag.ts). */
  previousLeaderZxid: z.nullable(z.string()),
  steps: z.array(stepSchema),
  /** Written by Keepers before it was counted: those read as nothing known. */
  sessionExpiries: z._default(sessionExpiriesSchema, { count: 0, keeper: 0, leader: null, leaderSince: null, last: null, gaps: 0 }),
  /** The ZooKeeper session of the Keeper process running it: after a kill, the next process knows its predecessor's. */
  keeperSession: z._default(z.nullable(z.string()), null),
  /** Every member checked against the target and its role: at the end (what done means) and on each resume. */
  recheck: z._default(z.nullable(recheckSchema), null),
  /** With replicas: the replica running it now, with when it took it on (ZooKeeper's time); null with a single Keeper. */
  runBy: z._default(z.nullable(z.extend(upgradeReplicaSchema, { since: z.number() })), null),
  /** With replicas: each time another replica took it over after its replica's session ended. */
  handovers: z._default(z.array(handoverSchema).check(z.maxLength(MAX_HANDOVERS)), []),
  /** The last time anything changed (each poll that changed a step, each action). */
  updatedAt: z.number(),
});
export type UpgradeWorkflow = z.infer<typeof upgradeWorkflowSchema>;

/** What the progress bar and its headline show. */
export const upgradeProgressSchema = z.object({
  /** 0..1, counting the current step's phase. */
  fraction: z.number(),
  finishedSteps: z.number(),
  totalSteps: z.number(),
  elapsedMs: z.number(),
  /** From the average of finished steps; null until one finished. */
  remainingMs: z.nullable(z.number()),
  /** "Restarting member 2 (next: 3, then the leader, 1)". */
  sentence: z.string(),
});
export type UpgradeProgress = z.infer<typeof upgradeProgressSchema>;

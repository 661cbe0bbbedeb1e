/**
 * The ensemble's event timeline: what the member poller saw change (leaders lost and elected with
 * their epochs, members down and back, alerts raised and cleared) and the upgrade's steps. Each
 * `at` is when Keeper OBSERVED it (the poll that first showed it), not when it happened on the
 * ensemble: a change is seen up to one poll interval late, and nothing is known while Keeper
 * itself is not running.
 */
import { z } from 'zod/mini';

export const ENSEMBLE_EVENT_KINDS = [
  /** Keeper started (or started again) watching: the leader, epoch and members as first seen. */
  'watching',
  'leader-lost',
  'leader-elected',
  'member-down',
  'member-up',
  /** Another change of a member's state: unreachable after down, a new member in the membership. */
  'member-state',
  'alert-raised',
  'alert-cleared',
  'upgrade',
  /** A resize's steps: started, each step verified, paused, failed, done (issue 24). */
  'resize',
  /** The dynamic configuration changed (/zookeeper/config's version), and Keeper's connection string following it. */
  'configuration',
] as const;
export type EnsembleEventKind = (typeof ENSEMBLE_EVENT_KINDS)[number];

export const ensembleEventSchema = z.object({
  /** Increasing within one timeline: what a browser has already seen. */
  seq: z.number(),
  /** When Keeper observed it (the poll's start, epoch ms, server clock). */
  at: z.number(),
  kind: z.enum(ENSEMBLE_EVENT_KINDS),
  /** One sentence without the time (the reader adds it in their time zone): "member 2 (127.0.0.1:2192) elected leader, epoch 1→2". */
  text: z.string(),
  severity: z.enum(['info', 'warning', 'critical']),
  /** The member it is about (host:clientPort), if one. */
  member: z.nullable(z.string()),
  /** leader-elected: the epochs before and after, and when the previous leader was seen lost. */
  epochFrom: z.optional(z.nullable(z.number())),
  epochTo: z.optional(z.nullable(z.number())),
  lostAt: z.optional(z.nullable(z.number())),
  /** alert-raised / alert-cleared: the alert's stable id. */
  alertId: z.optional(z.string()),
  /** upgrade: the workflow's id. */
  upgradeId: z.optional(z.string()),
  /** resize: the workflow's id. */
  reconfigId: z.optional(z.string()),
  /** configuration: the version it now has (hex, as /zookeeper/config prints it). */
  configVersion: z.optional(z.string()),
  /** watching: the last observation of the previous Keeper process, when one was kept (nothing is known in between). */
  notWatchingSince: z.optional(z.nullable(z.number())),
});
export type EnsembleEvent = z.infer<typeof ensembleEventSchema>;
/** An event before the timeline numbers it. */
export type NewEnsembleEvent = Omit<EnsembleEvent, 'seq'>;

/** GET /api/ensembles/<name>/events */
export const ensembleEventsAnswerSchema = z.object({
  ensemble: z.string(),
  /** Oldest first. */
  events: z.array(ensembleEventSchema),
  /** How the times were taken, in words. */
  observed: z.string(),
  /** What is kept: events younger than `keptMs`, at most `maxEvents`. */
  keptMs: z.number(),
  maxEvents: z.number(),
});
export type EnsembleEventsAnswer = z.infer<typeof ensembleEventsAnswerSchema>;

export const EVENT_TIMES_OBSERVED =
  "Times are when Keeper's member poller observed each change (a poll every few seconds), not when it happened on the ensemble; nothing is known while Keeper is not running.";

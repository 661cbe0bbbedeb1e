/**
 * The ensemble's health as the member poller sees it: the contract between the server's
 * poller (one per ensemble, never per browser), the JSON API and the web's ensemble,
 * sessions and watches views. Zod schemas so both ends validate what crosses the wire.
 */
import { z } from 'zod/mini';
import { requestHerdSchema } from './herd/schema.js';

/**
 * What a member is doing, in the operator's words (also the API's lower-case `role`):
 * serving as leader/follower/observer/standalone; `not-serving` answers but has no quorum;
 * `down` refused the connection (the FAQ's dead daemon); `unreachable` did not answer in
 * time (a hung process or a partition); `not-whitelisted` answers but the command we need
 * is not in 4lw.commands.whitelist and no AdminServer answered; `unknown` before the first poll.
 */
export const MEMBER_STATES = ['leader', 'follower', 'observer', 'standalone', 'not-serving', 'down', 'unreachable', 'not-whitelisted', 'unknown'] as const;
export type MemberState = z.infer<typeof memberStateSchema>;
export const memberStateSchema = z.enum(MEMBER_STATES);

export const SERVING_STATES: readonly MemberState[] = ['leader', 'follower', 'observer', 'standalone'];

export const memberMetricsSchema = z.object({
  version: z.nullable(z.string()),
  /** Last zxid as hex ("0x200000003"), from srvr (mntr has none). */
  zxid: z.nullable(z.string()),
  epoch: z.nullable(z.number()),
  latencyMin: z.nullable(z.number()),
  latencyAvg: z.nullable(z.number()),
  latencyMax: z.nullable(z.number()),
  connections: z.nullable(z.number()),
  outstanding: z.nullable(z.number()),
  znodeCount: z.nullable(z.number()),
  watchCount: z.nullable(z.number()),
  ephemerals: z.nullable(z.number()),
  approximateDataSize: z.nullable(z.number()),
  openFds: z.nullable(z.number()),
  maxFds: z.nullable(z.number()),
  /** Leader only. */
  followers: z.nullable(z.number()),
  syncedFollowers: z.nullable(z.number()),
  pendingSyncs: z.nullable(z.number()),
  /** Seconds, where the member reports it (AdminServer `uptime`). */
  uptimeSeconds: z.nullable(z.number()),
  packetsReceived: z.nullable(z.number()),
  packetsSent: z.nullable(z.number()),
  /** Leader only: sessions it expired since its process started (mntr zk_stale_sessions_expired). */
  sessionsExpired: z.optional(z.nullable(z.number())),
  /** Added: packets per second since the previous poll (zk_packets_received/sent deltas); null on the first poll or after a reset. */
  packetsReceivedPerSecond: z.optional(z.nullable(z.number())),
  packetsSentPerSecond: z.optional(z.nullable(z.number())),
});
export type MemberMetrics = z.infer<typeof memberMetricsSchema>;

export const memberStatusSchema = z.object({
  /** Server id (myid) where known from the configuration, else null. */
  id: z.nullable(z.number()),
  host: z.string(),
  clientPort: z.number(),
  adminPort: z.nullable(z.number()),
  /** host:clientPort, the member's stable key. */
  address: z.string(),
  state: memberStateSchema,
  /** From the ensemble configuration: voting participant or observer; null when unknown. */
  configuredRole: z.nullable(z.enum(['participant', 'observer'])),
  /** Why, when not plainly serving: "connection refused", "no answer within 2 s", "mntr is not in 4lw.commands.whitelist: add it". */
  detail: z.nullable(z.string()),
  /** Where the figures came from this poll. */
  source: z.nullable(z.enum(['admin', '4lw'])),
  metrics: memberMetricsSchema,
  /** When this member was last checked (epoch ms, server clock): what "checked 4 s ago" counts from. */
  polledAt: z.number(),
  /**
   * When that check's first request was sent (epoch ms, same clock): the member read its figures
   * after this, whatever delayed Keeper's reading of the answer (a stall of its event loop), so
   * arithmetic on the member's own clock (uptime) counts from here, never from polledAt.
   */
  probeSentAt: z.optional(z.number()),
  /** When it last answered as serving (epoch ms), for "down for 40 s". */
  lastServingAt: z.nullable(z.number()),
  /** Added: when the poller asks it next; later than the next poll while a down member is backed off. */
  nextPollAt: z.optional(z.nullable(z.number())),
  /**
   * Added: the member closes Keeper's new connections at once (maxClientCnxns reached for Keeper's
   * address) while other evidence says it serves; `state` is then its last known serving role.
   */
  connectionLimit: z.optional(
    z.nullable(
      z.object({
        /** From the member's `conf`; null when Keeper could not read it. */
        maxClientCnxns: z.nullable(z.number()),
        evidence: z.array(z.enum(['synced-followers', 'admin', 'console-session'])),
      }),
    ),
  ),
  /** Added: a reconfig removed it from the ensemble and it still answers (listed in the health's `removed`, never among the members). */
  removed: z.optional(z.boolean()),
});
export type MemberStatus = z.infer<typeof memberStatusSchema>;

export const alertSchema = z.object({
  /** Stable id so the UI can keep a dismissed alert dismissed: "even-voters", "behind:127.0.0.1:2192". */
  id: z.string(),
  severity: z.enum(['info', 'warning', 'critical']),
  /** One line: "Followers not synced: 1 of 2". */
  title: z.string(),
  /** Why it matters, in the operator's terms. */
  why: z.string(),
  /** What to do. */
  action: z.string(),
  members: z._default(z.array(z.string()), []),
  /** Added: the view that shows the evidence (the request herd's sessions, busiest first). */
  see: z.optional(z.object({ view: z.enum(['sessions', 'watches', 'locks', 'upgrades']), label: z.string() })),
  /** Added: when its evidence was gathered, where that is not the poll's time (a request herd: the sessions gathering). */
  asOf: z.optional(z.number()),
});
export type Alert = z.infer<typeof alertSchema>;

export const quorumSummarySchema = z.object({
  voters: z.number(),
  votersServing: z.number(),
  observers: z.number(),
  observersServing: z.number(),
  /** Voters needed for a quorum: floor(voters / 2) + 1. */
  quorumSize: z.number(),
  hasQuorum: z.boolean(),
  /** Failures the configured voters tolerate: floor((voters - 1) / 2). */
  tolerates: z.number(),
  /** More voter failures it can take right now, given who is serving (0 = at the edge). */
  canLoseNow: z.number(),
  /** "3 of 3 voters serving; tolerates 1 failure". */
  sentence: z.string(),
});
export type QuorumSummary = z.infer<typeof quorumSummarySchema>;

/** One sample per member per poll, kept ~15 minutes, for charts. */
export const historyPointSchema = z.object({
  at: z.number(),
  latencyAvg: z.nullable(z.number()),
  latencyMax: z.nullable(z.number()),
  outstanding: z.nullable(z.number()),
  connections: z.nullable(z.number()),
  znodeCount: z.nullable(z.number()),
  serving: z.boolean(),
  /** Added: packets received per second since the previous poll. */
  packetsReceivedPerSecond: z.optional(z.nullable(z.number())),
});
export type HistoryPoint = z.infer<typeof historyPointSchema>;

export const ensembleHealthSchema = z.object({
  ensemble: z.string(),
  polledAt: z.number(),
  pollIntervalMs: z.number(),
  members: z.array(memberStatusSchema),
  quorum: quorumSummarySchema,
  alerts: z.array(alertSchema),
  /**
   * Added: members a reconfig removed that still answer ("removed from the ensemble, still
   * running: stop it"); not counted in the quorum, the alerts or anything else. A removed member
   * that stops answering is dropped.
   */
  removed: z.optional(z.array(memberStatusSchema)),
  /** Added (replicas' sharedPolling): the replica that polled this result when it was not this one (`host:port`). */
  polledBy: z.optional(z.string()),
  /** Added: why this result is no longer live although the link to Keeper is (the polling replica's results stopped arriving); absent while live. */
  lateReason: z.optional(z.string()),
});
export type EnsembleHealth = z.infer<typeof ensembleHealthSchema>;

/** address -> samples, oldest first. */
export const memberHistorySchema = z.record(z.string(), z.array(historyPointSchema));
export type MemberHistory = z.infer<typeof memberHistorySchema>;

// ---- sizing ----

export const sizingInputSchema = z.object({
  voters: z.int().check(z.gte(0), z.lte(99)),
  observers: z.int().check(z.gte(0), z.lte(99)),
  /** Voters down now (maintenance or failure). */
  votersDown: z._default(z.int().check(z.gte(0)), 0),
});
export type SizingInput = z.infer<typeof sizingInputSchema>;

export const sizingReportSchema = z.object({
  input: sizingInputSchema,
  quorumSize: z.number(),
  tolerates: z.number(),
  /** Can one voter be in maintenance and still survive one more failure? (why 5 is recommended) */
  survivesMaintenancePlusFailure: z.boolean(),
  hasQuorumNow: z.boolean(),
  canLoseNow: z.number(),
  /** Plain sentences from the ZooKeeper docs and FAQ: writes, reads, observers, even sizes. */
  notes: z.array(z.string()),
  recommendation: z.string(),
});
export type SizingReport = z.infer<typeof sizingReportSchema>;

/** GET /api/ensembles/<name>/sizing[?down=<id or address>] */
export const sizingAnswerSchema = z.object({
  ensemble: z.string(),
  live: sizingReportSchema,
  whatIf: z.nullable(
    z.object({
      down: z.string(),
      /** Would the quorum hold if that member went down now? */
      quorumHolds: z.boolean(),
      canLoseAfter: z.number(),
      sentence: z.string(),
    }),
  ),
  /** Added: the calculator (`?voters=&observers=[&votersDown=]`), independent of the live ensemble. */
  calculator: z.optional(z.nullable(sizingReportSchema)),
});
export type SizingAnswer = z.infer<typeof sizingAnswerSchema>;

// ---- sessions (cons joined with dump) ----

export const ensembleSessionSchema = z.object({
  sessionId: z.string(),
  /** ip:port of the client. */
  client: z.string(),
  /** host:clientPort of the member it is connected to. */
  member: z.string(),
  timeoutMs: z.nullable(z.number()),
  establishedAt: z.nullable(z.number()),
  lastResponseAt: z.nullable(z.number()),
  latencyMin: z.nullable(z.number()),
  latencyAvg: z.nullable(z.number()),
  latencyMax: z.nullable(z.number()),
  queued: z.nullable(z.number()),
  received: z.nullable(z.number()),
  sent: z.nullable(z.number()),
  /**
   * Added: requests per second the client sent, from this connection's `recved` at the previous
   * gathering and now; null on its first reading, when it moved to another member, or when it
   * has no connection.
   */
  requestsPerSecond: z.optional(z.nullable(z.number())),
  /** Added: answers (and watch notifications) per second sent to it, from `sent` likewise. */
  sentPerSecond: z.optional(z.nullable(z.number())),
  /** Added: the last operation the member served it, as cons prints it (GETC = getChildren). */
  lastOperation: z.optional(z.nullable(z.string())),
  ephemeralCount: z.number(),
  ephemerals: z.array(z.string()),
  isConsole: z.boolean(),
  /**
   * Added: false when the session exists on the ensemble (dump) but no member we asked holds a
   * connection for it: a client that died or is partitioned, whose ephemerals live until it
   * expires. `client` and `member` are then empty strings.
   */
  connected: z.optional(z.boolean()),
  /** Added: when the leader will expire it if it stays silent (the leader's dump), epoch ms. */
  expiresAt: z.optional(z.nullable(z.number())),
  flags: z.array(
    z.object({
      /** 'no-connection' added: see `connected`. 'request-herd' added: one of the sessions the request herd names. */
      kind: z.enum(['long-timeout', 'silent-near-timeout', 'no-connection', 'request-herd']),
      message: z.string(),
    }),
  ),
});
export type EnsembleSession = z.infer<typeof ensembleSessionSchema>;

export const sessionsAnswerSchema = z.object({
  ensemble: z.string(),
  gatheredAt: z.nullable(z.number()),
  /** Members that could not be asked, with why (e.g. "cons is not in the 4lw whitelist"). */
  gaps: z.array(z.object({ member: z.string(), reason: z.string() })),
  sessions: z.array(ensembleSessionSchema),
  /** Seconds until a read gathers again (the last gathering is then a cadence old); gathering on demand is rate-limited per ensemble. */
  nextGatherInSeconds: z.number(),
  /** Added: seconds until "gather now" is allowed by the per-ensemble rate limit (0 = now). */
  gatherAllowedInSeconds: z.optional(z.number()),
  /** Added: a read gathers again once the last gathering is this old. */
  cadenceSeconds: z.optional(z.number()),
  /** Added: the seconds the rates are measured over (since the previous gathering); null on the first. */
  ratesOverSeconds: z.optional(z.nullable(z.number())),
  /** Added: a request-rate herd seen in this gathering (many sessions at similar high rates while latency climbs), else null. */
  herd: z.optional(z.nullable(requestHerdSchema)),
  /** Added: alerts from this gathering, in the /members alert shape (the herd's has id "request-herd"). */
  alerts: z.optional(z.array(alertSchema)),
});
export type SessionsAnswer = z.infer<typeof sessionsAnswerSchema>;

// ---- watches (wchs summary, wchp on demand) ----

export const watchesAnswerSchema = z.object({
  ensemble: z.string(),
  summary: z.array(
    z.object({
      member: z.string(),
      connections: z.nullable(z.number()),
      paths: z.nullable(z.number()),
      watches: z.nullable(z.number()),
      error: z.nullable(z.string()),
    }),
  ),
  /** From wchp, only when asked for (`?byPath=true`): the paths with the most watchers. */
  byPath: z.nullable(
    z.object({
      gatheredAt: z.number(),
      paths: z.array(
        z.object({
          path: z.string(),
          sessions: z.array(z.string()),
          watchers: z.number(),
          /** Added: Keeper's own session is among the watchers (a browser has this znode open). */
          byConsole: z.optional(z.boolean()),
        }),
      ),
      herds: z.array(z.object({ path: z.string(), watchers: z.number(), message: z.string() })),
      gaps: z.array(z.object({ member: z.string(), reason: z.string() })),
      /** Added: distinct watched paths over all members that answered (`paths` lists the busiest only). */
      distinctPaths: z.optional(z.number()),
      /** Added: Keeper's own session id, as wchp prints it ("0x..."), when it has one. */
      consoleSessionId: z.optional(z.nullable(z.string())),
    }),
  ),
  /** The ZooKeeper docs' warning about wchc/wchp cost, shown beside the button. */
  costWarning: z.string(),
  /** Added: seconds until wchp may run again (it is rate-limited per ensemble); 0 = now. */
  byPathNextInSeconds: z.optional(z.number()),
});
export type WatchesAnswer = z.infer<typeof watchesAnswerSchema>;

// ---- added: the JSON API's /members answer ----

/**
 * GET /api/ensembles/<name>/members: the poller's latest result, each member with `role`
 * (the same word as `state`: leader, follower, observer, standalone, not-serving, down,
 * unreachable, not-whitelisted, unknown) for scripts that read roles.
 */
export const membersAnswerSchema = z.extend(ensembleHealthSchema, {
  members: z.array(z.extend(memberStatusSchema, { role: memberStateSchema })),
});
export type MembersAnswer = z.infer<typeof membersAnswerSchema>;

/**
 * Several Keeper replicas on one home ensemble (docs/operating/replicas.md): what a replica says of itself
 * in its registry znode, and GET /api/replicas.
 */
import { z } from 'zod/mini';

/** The value of `<root>/replicas/<id>`, an ephemeral znode of the replica's state session. */
export const replicaRegistrationSchema = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  /** `<host>:<port>`, for people. */
  name: z.string().check(z.minLength(1), z.maxLength(300)),
  /** The URL it serves on (its own, not the load balancer's). */
  url: z.string().check(z.maxLength(300)),
  version: z.string().check(z.maxLength(64)),
  /** When its process started (epoch ms, its own clock). */
  startedAt: z.number(),
  pid: z.int(),
});
export type ReplicaRegistration = z.infer<typeof replicaRegistrationSchema>;

/**
 * How a replica answered the one that lists it: its GET /api/health, asked at its own URL with a
 * deadline (the answering replica itself is `serving` by answering). `unreachable` is said from the
 * answering replica's side: a peer it cannot reach may still serve browsers through the load balancer.
 */
export const replicaHealthSchema = z.object({
  state: z.enum(['serving', 'degraded', 'unreachable']),
  /** When it was asked (epoch ms, the answering replica's clock). */
  checkedAt: z.number(),
  /** How long it took to answer (absent when it did not). */
  answeredInMs: z.optional(z.number()),
  /** In words: its ensembles' states when degraded, the error or timeout when unreachable. */
  detail: z.string().check(z.maxLength(500)),
  /**
   * The last time it answered the answering replica's probe (epoch ms, the answering replica's
   * clock); null when it has not answered since that replica began asking. A killed replica stays
   * registered until ZooKeeper ends its session: this is the last moment it was known to run.
   */
  lastAnsweredAt: z.optional(z.nullable(z.number())),
});
export type ReplicaHealth = z.infer<typeof replicaHealthSchema>;

/** An upgrade this replica runs (it holds the ensemble's `upgrades/owner` znode). */
export const replicaUpgradeSchema = z.object({
  ensemble: z.string(),
  upgradeId: z.string(),
  /** ZooKeeper's ctime of its owner znode: since when this replica runs it. */
  since: z.number(),
  /**
   * Present when its replica does not answer (health `unreachable`): it is not known to run the
   * upgrade since then (its last answer, else its registration). ZooKeeper still names it the
   * owner until its session ends; another replica then takes the upgrade over.
   */
  unconfirmedSince: z.optional(z.number()),
});

export const replicaSchema = z.extend(replicaRegistrationSchema, {
  /** The replica that answered. */
  self: z.boolean(),
  health: replicaHealthSchema,
  /** With `sharedPolling`: it is the elected poller (the lowest candidate), polling the members for all. */
  poller: z.boolean(),
  /** The running upgrades it holds, by ensemble. */
  upgrades: z.array(replicaUpgradeSchema),
  /** ZooKeeper's ctime of its registry znode: when this registration was made (epoch ms). */
  registeredAt: z.number(),
  /** Its state session (the znode's ephemeralOwner), hex. */
  sessionId: z.string(),
});
export type Replica = z.infer<typeof replicaSchema>;

export const replicasAnswerSchema = z.object({
  /** False without `"replicas"` in the config: this Keeper runs alone and `replicas` is empty. */
  enabled: z.boolean(),
  /** The home ensemble's name, when enabled. */
  stateEnsemble: z.optional(z.string()),
  /** Whether one elected replica polls for all (`replicas.sharedPolling`); `poller` marks it. */
  sharedPolling: z.boolean(),
  /** When the registry was read (epoch ms, the answering replica's clock): the time the list is shown "as of". */
  readAt: z.number(),
  /**
   * When this answer was sent (the same clock): `answeredAt - readAt` is how old the reading was
   * when it left, which the browser can use whatever its own clock says. Absent from older Keepers.
   */
  answeredAt: z.optional(z.number()),
  /** A replica killed without closing stays listed until ZooKeeper ends its session, up to its timeout: this says so. */
  note: z.string(),
  replicas: z.array(replicaSchema),
});
export type ReplicasAnswer = z.infer<typeof replicasAnswerSchema>;

/**
 * Several Keeper replicas on one home ensemble (docs/replicas.md): what a replica says of itself
 * in its registry znode, and GET /api/replicas.
 */
import { z } from 'zod';

/** The value of `<root>/replicas/<id>`, an ephemeral znode of the replica's state session. */
export const replicaRegistrationSchema = z.object({
  id: z.string().min(1).max(64),
  /** `<host>:<port>`, for people. */
  name: z.string().min(1).max(300),
  /** The URL it serves on (its own, not the load balancer's). */
  url: z.string().max(300),
  version: z.string().max(64),
  /** When its process started (epoch ms, its own clock). */
  startedAt: z.number(),
  pid: z.number().int(),
});
export type ReplicaRegistration = z.infer<typeof replicaRegistrationSchema>;

export const replicaSchema = replicaRegistrationSchema.extend({
  /** The replica that answered. */
  self: z.boolean(),
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
  stateEnsemble: z.string().optional(),
  /** When the registry was read (epoch ms, the answering replica's clock). */
  readAt: z.number(),
  /** A replica killed without closing stays listed until ZooKeeper ends its session, up to its timeout: this says so. */
  note: z.string(),
  replicas: z.array(replicaSchema),
});
export type ReplicasAnswer = z.infer<typeof replicasAnswerSchema>;

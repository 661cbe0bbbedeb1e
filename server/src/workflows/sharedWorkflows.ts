/**
 * What an upgrade runner needs when its workflows are shared by several Keeper replicas
 * (docs/operating/replicas.md): the replicas' store implements it (replicas/sharedUpgrades.ts); a single
 * Keeper keeps its workflows on disk instead (upgradeStore.ts) and needs none of this.
 *
 * Exactly one replica runs an ensemble's current upgrade: the one whose state session holds the
 * ephemeral owner znode. The others mirror the stored workflow. Every write of the workflow is
 * compare-and-set at the version this replica last saw: a replica that lost its ownership (its
 * session ended and another took over) cannot store anything more, and a restart is never run
 * before its request is stored.
 */
import type { UpgradeReplica, UpgradeWorkflow } from '@keeper/shared';

export interface StoredWorkflow {
  wf: UpgradeWorkflow;
  /** The znode's version: the next compare-and-set names it. */
  version: number;
}

/** Who holds an ensemble's upgrade ownership, as its znode says. */
export interface WorkflowOwner extends UpgradeReplica {
  upgradeId: string;
  /** ZooKeeper's time of the owner znode (its ctime). */
  since: number;
  /** Its owner session (hex). */
  session: string;
}

export type OwnerClaim = { won: true; since: number } | { won: false; owner: WorkflowOwner | null };

export type WriteOutcome = { ok: true; version: number } | { ok: false };

export interface SharedWorkflowEvents {
  /** A workflow as stored now (written by any replica, this one included; compare the version). */
  changed(stored: StoredWorkflow): void;
  /** The owner znode is gone: the replica that ran the current upgrade ended its session (or released it). */
  ownerGone(): void;
}

export interface SharedWorkflows {
  /** This replica. */
  readonly self: UpgradeReplica;
  /** Reads the ensemble's stored workflows (keyed by its identity) and follows their changes from now on. */
  open(ensembleId: string, events: SharedWorkflowEvents): Promise<StoredWorkflow[]>;
  read(id: string): Promise<StoredWorkflow | null>;
  /** Creates (version null) or compare-and-sets the workflow; `ok: false` when another replica wrote first. */
  write(wf: UpgradeWorkflow, version: number | null): Promise<WriteOutcome>;
  /** Read, change, compare-and-set until it holds (an action taken on a replica that does not run the upgrade). */
  update(id: string, change: (wf: UpgradeWorkflow) => UpgradeWorkflow): Promise<StoredWorkflow>;
  /** Takes the ownership for `upgradeId` with an ephemeral znode of this replica's state session. */
  claim(upgradeId: string): Promise<OwnerClaim>;
  /** True while this replica's current state session holds the ownership. */
  owns(upgradeId: string): Promise<boolean>;
  /** Gives the ownership up (the upgrade ended). */
  release(upgradeId: string): Promise<void>;
  /** The stored workflows read so far, newest first. */
  list(): UpgradeWorkflow[];
  get(id: string): UpgradeWorkflow | null;
  /** Drops the oldest finished workflows past the history's bound. */
  prune(): Promise<void>;
  close(): void;
}

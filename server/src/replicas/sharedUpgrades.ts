/**
 * Upgrade workflows kept in the home ensemble (docs/operating/replicas.md), for one watched ensemble:
 *   <root>/ensembles/<ensemble id>/upgrades/<upgrade id>   persistent: the workflow (≤ 64 KiB, workflowFit.ts)
 *   <root>/ensembles/<ensemble id>/upgrades/owner          ephemeral: {replica, name, upgradeId}, who runs it
 * keyed by the ensemble's identity (`/keeper/ensemble-id`), never its name. At most HISTORY_KEPT
 * finished workflows and the current one.
 *
 * The directory, its owner znode and the watches that follow them are sharedRecordDirectory.ts's,
 * shared with lock scans; what is an upgrade's own is here.
 */
import type { Logger } from 'pino';
import { isFinished, upgradeWorkflowSchema, type UpgradeReplica, type UpgradeWorkflow } from '@keeper/shared';
import { ZkError } from '../zk/errors.js';
import { HISTORY_KEPT, UPGRADE_ID } from '../upgrades/upgradeStore.js';
import type { SharedWorkflows, StoredWorkflow } from '../workflows/sharedWorkflows.js';
import { MAX_VALUE_BYTES, type ReplicaStore } from './replicaStore.js';
import { SharedRecordDirectory, type RecordKind } from './sharedRecordDirectory.js';
import { fitWorkflow } from './workflowFit.js';

function fit(wf: UpgradeWorkflow): UpgradeWorkflow {
  // A little under the cap: the store's own check counts the same bytes.
  const fitted = fitWorkflow(wf, MAX_VALUE_BYTES - 256);
  if (!fitted) throw new ZkError('DATA_TOO_LARGE', `upgrade ${wf.id} does not fit in ${MAX_VALUE_BYTES} bytes even trimmed`);
  return fitted;
}

const UPGRADES: RecordKind<UpgradeWorkflow, StoredWorkflow, 'upgradeId'> = {
  directory: 'upgrades',
  schema: upgradeWorkflowSchema,
  idPattern: UPGRADE_ID,
  ownerIdKey: 'upgradeId',
  stored: (wf, version) => ({ wf, version }),
  recordOf: (stored) => stored.wf,
  startedAt: (wf) => wf.createdAt,
  isFinished: (wf) => isFinished(wf),
  fit,
  finishedKept: () => HISTORY_KEPT,
  claimReadsUnseen: false,
  words: { prefix: 'shared upgrades', record: 'workflow', logKey: 'upgrade', anId: 'an upgrade id' },
};

export class SharedUpgrades extends SharedRecordDirectory<UpgradeWorkflow, StoredWorkflow, 'upgradeId'> implements SharedWorkflows {
  constructor(store: ReplicaStore, who: () => UpgradeReplica, log: Logger) {
    super(store, who, log, UPGRADES);
  }

  async update(id: string, change: (wf: UpgradeWorkflow) => UpgradeWorkflow): Promise<StoredWorkflow> {
    const stored = await this.store.update(this.pathOf(id), upgradeWorkflowSchema, (current) => {
      if (current === null) throw new ZkError('NO_NODE', `upgrade ${id} is not stored in the home ensemble`);
      return fit(change(current));
    });
    return this.remember({ wf: stored.value, version: stored.stat.version });
  }

  /** Who runs this ensemble's current upgrade (for GET /api/replicas): one read; null when none runs or not open yet. */
  async runner(): Promise<{ replica: string; upgradeId: string; since: number } | null> {
    if (!this.isOpen) return null;
    const owner = await this.readOwner();
    return owner ? { replica: owner.replica, upgradeId: owner.upgradeId, since: owner.since } : null;
  }
}

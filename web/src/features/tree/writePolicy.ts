/**
 * Which write controls a znode gets, and why not where it gets none. A control is offered only
 * where the write can succeed; where it cannot, the operator is told why instead of meeting a
 * refusal after typing. Facts checked on ZooKeeper 3.8 (sandbox, kazoo):
 * - /zookeeper/config: ACL world:anyone:r, version -1; setData and create under it are refused
 *   (NO_AUTH), delete is refused (BAD_ARGUMENTS). Membership changes go through `reconfig`.
 * - /zookeeper and /zookeeper/quota: ZooKeeper accepts writes, but Keeper never deletes under
 *   /zookeeper (the server refuses), so it does not create there either: quotas are set with
 *   zkCli's setquota/delquota. An existing quota node's value may be edited.
 * - An ephemeral node cannot have children (NO_CHILDREN_FOR_EPHEMERALS).
 * - Nothing is written while the console's session is not live (disconnected, no quorum).
 */
import { isProtectedFromDelete, isUnderZookeeper, type ZnodeStat } from '@keeper/shared';
import { toHexId } from '../../lib/zxid';
import { writesPausedReason } from '../../app/freshness/freshness';

export type WriteAction = 'edit' | 'create' | 'delete' | 'import';

export type WriteGate =
  | { state: 'offered' }
  /** Shown but disabled: the write could work later (the session is back). */
  | { state: 'paused'; reason: string }
  /** Not shown: it cannot work on this node. */
  | { state: 'absent'; reason: string | null };

export interface WriteNote {
  /** A few words for the header. */
  short: string;
  /** The whole reason, as a sentence. */
  long: string;
}

export interface WritePolicy {
  gates: Record<WriteAction, WriteGate>;
  /** Why some controls are missing on this node, when that is not obvious. */
  note: WriteNote | null;
}

const CONFIG: WriteNote = {
  short: 'read-only: maintained by ZooKeeper',
  long: 'ZooKeeper maintains /zookeeper/config itself (version -1, ACL world:anyone:r): it cannot be edited, deleted or given children. Change membership with reconfig.',
};
const SYSTEM: WriteNote = {
  short: 'read-only: ZooKeeper’s own node',
  long: 'This is ZooKeeper’s own namespace. Keeper does not edit it nor create nodes under /zookeeper; it deletes only a node someone else put here.',
};
const QUOTA: WriteNote = {
  short: 'quota node: edit only',
  long: 'Quota nodes are made and removed with zkCli’s setquota and delquota; Keeper does not create or delete nodes under /zookeeper. An existing quota value can be edited.',
};
const EPHEMERAL: WriteNote = {
  short: 'no children: ephemeral node',
  long: 'This node is ephemeral: ZooKeeper does not allow children under an ephemeral node, so there is no Create child or Import here.',
};

const offered: WriteGate = { state: 'offered' };
const absent = (reason: string | null = null): WriteGate => ({ state: 'absent', reason });

function isQuotaNode(path: string): boolean {
  return path.startsWith('/zookeeper/quota/');
}

export function writePolicy(path: string, stat: ZnodeStat, live: { live: true } | { live: false; reason: string }): WritePolicy {
  const system = isUnderZookeeper(path);
  const ephemeral = toHexId(stat.ephemeralOwner) !== '0x0';
  let note: WriteNote | null = null;
  const gates: Record<WriteAction, WriteGate> = { edit: offered, create: offered, delete: offered, import: offered };

  // The server's rule: a stray node under /zookeeper may be deleted, ZooKeeper's own may not.
  if (isProtectedFromDelete(path)) gates.delete = absent();
  if (system) {
    note = path === '/zookeeper/config' ? CONFIG : isQuotaNode(path) ? QUOTA : SYSTEM;
    gates.create = absent(note.long);
    gates.import = absent(note.long);
    if (!isQuotaNode(path)) gates.edit = absent(note.long);
  }
  // A version of -1 cannot be checked against: ZooKeeper keeps such a node itself.
  if (stat.version < 0 && gates.edit.state === 'offered') {
    note ??= CONFIG;
    gates.edit = absent(note.long);
  }
  if (ephemeral) {
    note ??= EPHEMERAL;
    gates.create = absent(EPHEMERAL.long);
    gates.import = absent(EPHEMERAL.long);
  }
  if (!live.live) {
    const reason = writesPausedReason(live) ?? '';
    for (const action of Object.keys(gates) as WriteAction[]) {
      if (gates[action].state === 'offered') gates[action] = { state: 'paused', reason };
    }
  }
  return { gates, note };
}

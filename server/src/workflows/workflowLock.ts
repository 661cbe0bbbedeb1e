/**
 * One workflow (an upgrade or a resize) per ZooKeeper ensemble across Keeper processes: an
 * ephemeral znode (still named upgrade-lock, as Keepers before resizes named it) created by the
 * console's own session, in the ensemble itself. It vanishes with the session that made it, so a
 * Keeper that died mid-upgrade does not block the next one longer than its session timeout.
 * The path does not depend on what Keeper calls the ensemble: two consoles that name it
 * differently still meet on the same lock (a chroot in the connection string moves it, though).
 */
import { hostname } from 'node:os';
import zookeeper from 'node-zookeeper-client';
import { normalizeSessionId } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import { ZkError, toZkError } from '../zk/errors.js';
import type { ZkMutations } from '../zk/mutations.js';

export const UPGRADE_LOCK_PARENT = '/keeper';
export const UPGRADE_LOCK_PATH = '/keeper/upgrade-lock';

/** Who holds the lock, as written in it. */
export interface LockHolder {
  keeper: string;
  ensemble: string;
  upgradeId: string;
  by: string | null;
  since: number;
}

/**
 * `sameUpgrade`: the holder runs this very upgrade from another session. After a Keeper restart
 * that is the previous process, whose session outlives it until its timeout (a kill sends no
 * close, and a close sent to a member being restarted is lost): the runner waits for it to end.
 */
export type LockAttempt = { held: true } | { held: false; holder: string; sameUpgrade: boolean };

/** What the lock says of its holder; null when it holds no Keeper description. */
function holderOf(data: Buffer): Partial<LockHolder> | null {
  try {
    const parsed: unknown = JSON.parse(data.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Partial<LockHolder>) : null;
  } catch {
    return null;
  }
}

function describeHolder(h: Partial<LockHolder> | null, owner: string): string {
  if (!h) return `session ${owner} (${UPGRADE_LOCK_PATH} holds no Keeper description)`;
  return `Keeper ${h.keeper ?? 'unknown'} (upgrade ${h.upgradeId ?? '?'}${h.by ? ` by ${h.by}` : ''}, session ${owner})`;
}

export class WorkflowLock {
  readonly keeperName = `${hostname()}:${process.pid}`;

  constructor(
    private readonly gateway: ZkGateway,
    private readonly mutations: ZkMutations,
    private readonly ensemble: string,
  ) {}

  private ours(owner: string): boolean {
    const mine = this.gateway.session.sessionId;
    return mine !== null && normalizeSessionId(owner) === normalizeSessionId(mine);
  }

  /** Takes the lock for `upgradeId` (or confirms this session holds it); says who holds it otherwise. */
  async acquire(upgradeId: string, by: string | null): Promise<LockAttempt> {
    const holder: LockHolder = { keeper: this.keeperName, ensemble: this.ensemble, upgradeId, by, since: Date.now() };
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await this.read();
      const theirs = existing && holderOf(existing.data);
      if (existing && !this.ours(existing.owner)) {
        return { held: false, holder: describeHolder(theirs, existing.owner), sameUpgrade: theirs?.upgradeId === upgradeId };
      }
      if (existing && theirs?.upgradeId === upgradeId) return { held: true };
      if (existing) {
        // This session's lock for an upgrade that ended: its release may still be on its way.
        await this.remove(existing.version);
        continue;
      }
      try {
        await this.ensureParent();
        await this.mutations.create(UPGRADE_LOCK_PATH, Buffer.from(JSON.stringify(holder)), zookeeper.CreateMode.EPHEMERAL);
        return { held: true };
      } catch (error) {
        // Another process won the race (or the reply was lost and it is ours): look again.
        if (toZkError(error).code !== 'NODE_EXISTS') throw error;
      }
    }
    throw new ZkError('NODE_EXISTS', `${UPGRADE_LOCK_PATH} kept changing while Keeper tried to take it`, UPGRADE_LOCK_PATH);
  }

  /** Deletes the lock if this session holds it for `upgradeId` (never a later upgrade's). */
  async release(upgradeId: string): Promise<void> {
    const existing = await this.read();
    if (existing && this.ours(existing.owner) && holderOf(existing.data)?.upgradeId === upgradeId) await this.remove(existing.version);
  }

  /** The session holding the lock (whichever upgrade it is for), or null when nobody does. */
  async owner(): Promise<string | null> {
    return (await this.read())?.owner ?? null;
  }

  private async remove(version: number): Promise<void> {
    await this.mutations.remove(UPGRADE_LOCK_PATH, version).catch((error: unknown) => {
      const code = toZkError(error).code;
      if (code !== 'NO_NODE' && code !== 'BAD_VERSION') throw error;
    });
  }

  private async read(): Promise<{ data: Buffer; owner: string; version: number } | null> {
    try {
      const { data, stat } = await this.gateway.getData(UPGRADE_LOCK_PATH);
      return { data, owner: stat.ephemeralOwner, version: stat.version };
    } catch (error) {
      if (toZkError(error).code === 'NO_NODE') return null;
      throw error;
    }
  }

  private async ensureParent(): Promise<void> {
    try {
      await this.mutations.create(UPGRADE_LOCK_PARENT, Buffer.alloc(0), zookeeper.CreateMode.PERSISTENT);
    } catch (error) {
      if (toZkError(error).code !== 'NODE_EXISTS') throw error;
    }
  }
}

/**
 * Upgrade workflows kept in the home ensemble (docs/replicas.md), for one watched ensemble:
 *   <root>/ensembles/<ensemble id>/upgrades/<upgrade id>   persistent: the workflow (≤ 64 KiB, workflowFit.ts)
 *   <root>/ensembles/<ensemble id>/upgrades/owner          ephemeral: {replica, name, upgradeId}, who runs it
 * keyed by the ensemble's identity (`/keeper/ensemble-id`), never its name. At most HISTORY_KEPT
 * finished workflows and the current one.
 *
 * Every replica follows the directory's children (an upgrade planned on another replica), the
 * data of each unfinished workflow (its progress, written by the replica that runs it), and the
 * owner znode (its deletion is the runner's session ending: another replica takes over). Each is
 * one watch of the state session's registry, re-armed after a new session.
 */
import zookeeper from 'node-zookeeper-client';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isFinished, normalizeSessionId, upgradeWorkflowSchema, type UpgradeReplica, type UpgradeWorkflow, type ZnodeState } from '@keeper/shared';
import { ZkError, toZkError } from '../zk/errors.js';
import { HISTORY_KEPT, UPGRADE_ID } from '../upgrades/upgradeStore.js';
import type { OwnerClaim, SharedWorkflowEvents, SharedWorkflows, StoredWorkflow, WorkflowOwner, WriteOutcome } from '../upgrades/sharedWorkflows.js';
import { MAX_VALUE_BYTES, type ReplicaStore } from './replicaStore.js';
import { fitWorkflow } from './workflowFit.js';

const OWNER = 'owner';
const ownerSchema = z.object({ replica: z.string().max(64), name: z.string().max(300), upgradeId: z.string().max(64) });

export class SharedUpgrades implements SharedWorkflows {
  private dir: string | null = null;
  private events: SharedWorkflowEvents | null = null;
  private readonly history = new Map<string, StoredWorkflow>();
  /** Data watches of the unfinished workflows, by id. */
  private readonly following = new Map<string, () => void>();
  private readonly stops: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly store: ReplicaStore,
    /** This replica (its name is known once it serves). */
    private readonly who: () => UpgradeReplica,
    private readonly log: Logger,
  ) {}

  get self(): UpgradeReplica {
    return this.who();
  }

  private get ownerPath(): string {
    return `${this.requireDir()}/${OWNER}`;
  }

  private pathOf(id: string): string {
    if (!UPGRADE_ID.test(id)) throw new ZkError('INVALID_PATH', `not an upgrade id: ${JSON.stringify(id.slice(0, 64))}`);
    return `${this.requireDir()}/${id}`;
  }

  private requireDir(): string {
    if (this.dir === null) throw new Error('shared upgrades: not open yet');
    return this.dir;
  }

  async open(ensembleId: string, events: SharedWorkflowEvents): Promise<StoredWorkflow[]> {
    const dir = this.store.path('ensembles', ensembleId, 'upgrades');
    await this.store.ensureRoot();
    await this.store.createIfMissing(this.store.path('ensembles'), {});
    await this.store.createIfMissing(this.store.path('ensembles', ensembleId), {});
    await this.store.createIfMissing(dir, {});
    this.dir = dir;
    for (const name of (await this.store.children(dir)).filter((n) => UPGRADE_ID.test(n))) await this.readInto(name);
    this.events = events;
    if (this.closed) return [];
    this.stops.push(
      this.store.gateway.watches.watch(dir, {
        onNode: () => undefined,
        onChildren: ({ names }) => void this.onChildren(names),
        onWatchEvent: () => undefined,
        onError: (error, retrying) => this.log.warn({ err: error, retrying, path: dir }, 'shared upgrades: watching the directory failed'),
      }),
    );
    this.stops.push(
      this.store.gateway.watches.watch(this.ownerPath, {
        onNode: (state) => this.onOwner(state),
        onChildren: () => undefined,
        onWatchEvent: () => undefined,
        onError: (error, retrying) => this.log.warn({ err: error, retrying }, 'shared upgrades: watching the owner failed'),
      }),
    );
    this.followUnfinished();
    return [...this.history.values()];
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
    for (const unwatch of this.following.values()) unwatch();
    this.following.clear();
  }

  list(): UpgradeWorkflow[] {
    return [...this.history.values()].map((s) => s.wf).sort((a, b) => b.createdAt - a.createdAt);
  }

  get(id: string): UpgradeWorkflow | null {
    return this.history.get(id)?.wf ?? null;
  }

  async read(id: string): Promise<StoredWorkflow | null> {
    const stored = await this.store.read(this.pathOf(id), upgradeWorkflowSchema);
    if (!stored) return null;
    return this.remember({ wf: stored.value, version: stored.stat.version });
  }

  async write(wf: UpgradeWorkflow, version: number | null): Promise<WriteOutcome> {
    const fitted = this.fit(wf);
    const path = this.pathOf(wf.id);
    if (version === null) {
      try {
        await this.store.create(path, fitted);
      } catch (error) {
        if (toZkError(error).code === 'NODE_EXISTS') return { ok: false };
        throw error;
      }
      this.remember({ wf: fitted, version: 0 });
      this.followUnfinished();
      return { ok: true, version: 0 };
    }
    const outcome = await this.store.compareAndSet(path, fitted, version, upgradeWorkflowSchema);
    if (!outcome.ok) return { ok: false };
    this.remember({ wf: fitted, version: outcome.stat.version });
    return { ok: true, version: outcome.stat.version };
  }

  async update(id: string, change: (wf: UpgradeWorkflow) => UpgradeWorkflow): Promise<StoredWorkflow> {
    const stored = await this.store.update(this.pathOf(id), upgradeWorkflowSchema, (current) => {
      if (current === null) throw new ZkError('NO_NODE', `upgrade ${id} is not stored in the home ensemble`);
      return this.fit(change(current));
    });
    return this.remember({ wf: stored.value, version: stored.stat.version });
  }

  async claim(upgradeId: string): Promise<OwnerClaim> {
    const value = { ...this.self, upgradeId };
    for (let round = 0; round < 3; round++) {
      try {
        await this.store.create(this.ownerPath, value, zookeeper.CreateMode.EPHEMERAL);
      } catch (error) {
        if (toZkError(error).code !== 'NODE_EXISTS') throw error;
      }
      const owner = await this.readOwner();
      if (!owner) continue;
      const ours = owner.session === this.mySession() && owner.session !== null;
      if (ours && owner.upgradeId === upgradeId) return { won: true, since: owner.since };
      // Held for an upgrade that has ended (its release was lost): it holds nothing any more.
      const held = this.history.get(owner.upgradeId);
      if (ours || (held && isFinished(held.wf))) {
        await this.store.remove(this.ownerPath, owner.version);
        continue;
      }
      return { won: false, owner };
    }
    return { won: false, owner: await this.readOwner() };
  }

  async owns(upgradeId: string): Promise<boolean> {
    const owner = await this.readOwner();
    return owner !== null && owner.upgradeId === upgradeId && owner.session === this.mySession();
  }

  async release(upgradeId: string): Promise<void> {
    const owner = await this.readOwner();
    if (owner && owner.upgradeId === upgradeId && owner.session === this.mySession()) await this.store.remove(this.ownerPath, owner.version);
  }

  async prune(): Promise<void> {
    const finished = this.list().filter((w) => isFinished(w));
    for (const old of finished.slice(HISTORY_KEPT)) {
      await this.store.remove(this.pathOf(old.id), -1);
      this.history.delete(old.id);
    }
  }

  private fit(wf: UpgradeWorkflow): UpgradeWorkflow {
    // A little under the cap: the store's own check counts the same bytes.
    const fitted = fitWorkflow(wf, MAX_VALUE_BYTES - 256);
    if (!fitted) throw new ZkError('DATA_TOO_LARGE', `upgrade ${wf.id} does not fit in ${MAX_VALUE_BYTES} bytes even trimmed`);
    return fitted;
  }

  /** Who runs this ensemble's current upgrade (for GET /api/replicas): one read; null when none runs or not open yet. */
  async runner(): Promise<{ replica: string; upgradeId: string; since: number } | null> {
    if (this.dir === null) return null;
    const owner = await this.readOwner();
    return owner ? { replica: owner.replica, upgradeId: owner.upgradeId, since: owner.since } : null;
  }

  private mySession(): string | null {
    const id = this.store.gateway.session.sessionId;
    return id === null ? null : normalizeSessionId(id);
  }

  private async readOwner(): Promise<(WorkflowOwner & { version: number }) | null> {
    const stored = await this.store.read(this.ownerPath, ownerSchema);
    if (!stored) return null;
    return {
      ...stored.value,
      since: stored.stat.ctime,
      session: normalizeSessionId(stored.stat.ephemeralOwner) ?? stored.stat.ephemeralOwner,
      version: stored.stat.version,
    };
  }

  /** Keeps the newest version read of each workflow; says so when it is new. */
  private remember(stored: StoredWorkflow): StoredWorkflow {
    const known = this.history.get(stored.wf.id);
    if (known && known.version >= stored.version) return known;
    this.history.set(stored.wf.id, stored);
    return stored;
  }

  private async readInto(id: string): Promise<void> {
    try {
      const before = this.history.get(id)?.version ?? -1;
      const stored = await this.read(id);
      if (stored && stored.version > before) this.events?.changed(stored);
    } catch (error) {
      this.log.warn({ err: error, upgrade: id }, 'shared upgrades: a stored workflow could not be read; ignored');
    }
  }

  private async onChildren(names: readonly string[]): Promise<void> {
    const present = new Set(names.filter((n) => UPGRADE_ID.test(n)));
    for (const id of [...this.history.keys()]) if (!present.has(id)) this.history.delete(id);
    for (const id of present) if (!this.history.has(id)) await this.readInto(id);
    this.followUnfinished();
  }

  /** One data watch per unfinished workflow (the current one, in practice): its progress from the replica running it. */
  private followUnfinished(): void {
    if (this.closed || this.events === null) return;
    for (const [id, stored] of this.history) {
      if (this.following.has(id) || isFinished(stored.wf)) continue;
      this.following.set(
        id,
        this.store.gateway.watches.watch(this.pathOf(id), {
          onNode: (state) => this.onWorkflow(id, state),
          onChildren: () => undefined,
          onWatchEvent: () => undefined,
          onError: (error, retrying) => this.log.warn({ err: error, retrying, upgrade: id }, 'shared upgrades: watching a workflow failed'),
        }),
      );
    }
  }

  private onWorkflow(id: string, state: ZnodeState): void {
    if (!state.exists) return;
    const known = this.history.get(id)?.version ?? -1;
    if (state.stat.version > known) {
      // Read again rather than decode the watch's copy: a long workflow may come truncated there.
      void this.readInto(id).then(() => this.stopFollowingFinished(id));
    } else this.stopFollowingFinished(id);
  }

  private stopFollowingFinished(id: string): void {
    const stored = this.history.get(id);
    if (stored && !isFinished(stored.wf)) return;
    this.following.get(id)?.();
    this.following.delete(id);
  }

  private onOwner(state: ZnodeState): void {
    if (!state.exists) this.events?.ownerGone();
  }
}

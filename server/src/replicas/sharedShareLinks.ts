/**
 * Share links shared by the replicas (docs/operating/replicas.md): each link is `<root>/share-links/<id>`,
 * its stored form (the token's hash, never the token). A link made or revoked on one replica is
 * written there before that replica answers; every replica watches the directory's children (new
 * links) and each link's data (revocations) through its state session's watch registry, which
 * re-reads and re-arms after a new session. A revocation read from the watch ends the link's
 * sessions and sockets on this replica at once, as a local one does.
 *
 * A revocation is a compare-and-set update that keeps the earliest `revokedAt`: two replicas
 * revoking at once agree, and a revoked link is never un-revoked.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { backoffDelay, type Backoff, type ZnodeState } from '@keeper/shared';
import { MAX_SHARE_LINKS, storedLinkSchema, type ShareLinkStore, type StoredLink } from '../auth/shareLinks.js';
import type { ReplicaStore } from './replicaStore.js';

/** Links watched at most (docs/operating/replicas.md): each is one data watch on the state session. */
export const MAX_SHARED_LINKS = MAX_SHARE_LINKS;
const RETRY: Backoff = { baseMs: 200, capMs: 5_000, jitter: [0.5, 1] };
/** How long a write of a link may take, retries included, before the replica answers without it. */
const PUBLISH_DEADLINE_MS = 15_000;

export class SharedShareLinks {
  private readonly watched = new Map<string, () => void>();
  private unwatchDir: (() => void) | null = null;
  private closed = false;
  /** One look-up of unseen links at a time, joined by every request that misses meanwhile. */
  private looking: Promise<void> | null = null;

  constructor(
    private readonly store: ReplicaStore,
    private readonly links: ShareLinkStore,
    private readonly log: Logger,
  ) {}

  get dir(): string {
    return this.store.path('share-links');
  }

  /** Publishes this replica's links and its changes from now on, and follows the others'. */
  async start(): Promise<void> {
    this.links.setPublisher((link) => this.publish(link));
    this.links.setShared({ lookup: () => this.lookup(), forgotten: (id) => this.forgotten(id) });
    await this.untilDone('prepare the share-link directory', async () => {
      await this.store.ensureRoot();
      await this.store.createIfMissing(this.dir, {});
    });
    if (this.closed) return;
    // Links this replica held before replicas were turned on (or made while the ensemble was away).
    for (const link of this.links.storedLinks()) await this.publish(link);
    this.unwatchDir = this.store.gateway.watches.watch(this.dir, {
      onNode: () => undefined,
      onChildren: ({ names }) => this.follow(names),
      onWatchEvent: () => undefined,
      onError: (error, retrying) => this.log.warn({ err: error, retrying }, 'share links: watching the shared directory failed'),
    });
  }

  close(): void {
    this.closed = true;
    this.unwatchDir?.();
    for (const unwatch of this.watched.values()) unwatch();
    this.watched.clear();
  }

  /** Writes a link's change: a new link is created, a revocation merged into what is stored. */
  private publish(link: StoredLink): Promise<void> {
    const path = this.store.path('share-links', link.id);
    return this.untilDone(
      `publish share link ${link.id}`,
      async () => {
        await this.store.update(path, storedLinkSchema, (current) => {
          if (!current) return link;
          const revokedAt =
            current.revokedAt === undefined ? link.revokedAt : link.revokedAt === undefined ? current.revokedAt : Math.min(current.revokedAt, link.revokedAt);
          return revokedAt === undefined ? current : { ...current, revokedAt };
        });
      },
      PUBLISH_DEADLINE_MS,
    );
  }

  /**
   * A token this replica does not know: the links in the home ensemble it has not read yet are
   * read now (a link made on another replica moments ago, before the child watch fired). Only
   * tokens past the sign-in limiter get here; concurrent misses share one listing.
   */
  lookup(): Promise<void> {
    this.looking ??= (async () => {
      try {
        const names = await this.store.children(this.dir);
        const known = new Set(this.links.storedLinks().map((l) => l.id));
        for (const id of names.filter((n) => !known.has(n)).slice(0, MAX_SHARED_LINKS)) {
          const stored = await this.store.read(this.store.path('share-links', id), storedLinkSchema).catch(() => null);
          if (stored) this.links.absorb(stored.value);
        }
      } finally {
        this.looking = null;
      }
    })();
    return this.looking;
  }

  /** A link forgotten here (ended long ago, or to make room) goes from the home ensemble too; whoever deletes first. */
  private forgotten(id: string): void {
    this.store
      .remove(this.store.path('share-links', id), -1)
      .catch((error: unknown) => this.log.debug({ err: error, linkId: id }, 'share links: a forgotten link stays in the home ensemble for now'));
  }

  private follow(names: readonly string[]): void {
    if (this.closed) return;
    const present = new Set(names);
    for (const [id, unwatch] of this.watched) {
      if (present.has(id)) continue;
      unwatch();
      this.watched.delete(id);
      // Deleted by the replica that forgot it (ended): forgotten here too, never an active one.
      this.links.forgetEnded(id);
    }
    for (const id of names) {
      if (this.watched.has(id)) continue;
      if (this.watched.size >= MAX_SHARED_LINKS) {
        this.log.warn({ max: MAX_SHARED_LINKS }, 'share links: more shared links than are followed; the rest are not');
        break;
      }
      const path = this.store.path('share-links', id);
      this.watched.set(
        id,
        this.store.gateway.watches.watch(path, {
          onNode: (state) => this.absorb(path, state),
          onChildren: () => undefined,
          onWatchEvent: () => undefined,
          onError: (error, retrying) => this.log.warn({ err: error, retrying, path }, 'share links: watching a shared link failed'),
        }),
      );
    }
  }

  private absorb(path: string, state: ZnodeState): void {
    if (!state.exists) return;
    if (state.data.encoding !== 'json' || state.data.truncated) return this.log.warn({ path }, 'share links: a shared link is not JSON Keeper wrote');
    const parsed = storedLinkSchema.safeParse(JSON.parse(state.data.value));
    if (!parsed.success) return this.log.warn({ path }, 'share links: a shared link is not what Keeper writes');
    if (this.links.absorb(parsed.data))
      this.log.info({ linkId: parsed.data.id, revoked: parsed.data.revokedAt !== undefined }, 'share link from another replica');
  }

  /** Runs `work` until it succeeds, with jittered backoff; past `deadlineMs` it gives up (logged). */
  private async untilDone(what: string, work: () => Promise<void>, deadlineMs = Number.POSITIVE_INFINITY): Promise<void> {
    const deadlineAt = Date.now() + deadlineMs;
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        return await work();
      } catch (error) {
        const delay = backoffDelay(attempt, RETRY);
        if (Date.now() + delay >= deadlineAt) {
          this.log.error({ err: error }, `share links: could not ${what}`);
          return;
        }
        if (attempt === 0 || attempt % 10 === 0) this.log.warn({ err: error }, `share links: could not ${what} yet: retrying`);
        await sleep(delay);
      }
    }
  }
}

/**
 * Read-only share links: an admin makes a link to one view; opening it gives a viewer session
 * bound to the link. Only a hash of each token is stored (a leaked state file grants nothing),
 * in a JSON file in the state directory so links survive restarts. Revocation and expiry are
 * announced ('ended') so sessions and open sockets bound to the link end at once.
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { z } from 'zod';
import { legacyScope, shareScopeSchema, type ShareLinkView, type ShareScope } from '@keeper/shared';
import { randomToken, sha256Hex } from './secrets.js';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';

export const SHARE_LINKS_FILE = 'share-links.json';
/** Ended links stay listed (as revoked/expired) this long, then are forgotten. */
const KEEP_ENDED_MS = 7 * 24 * 3600_000;
/**
 * Links kept, ended ones included: a new link past it first makes the oldest ended one forgotten
 * early, and is refused when every kept link is active. With replicas each is one data watch.
 */
export const MAX_SHARE_LINKS = 1_000;

/** A new link when MAX_SHARE_LINKS active ones are kept already. */
export class TooManyShareLinksError extends Error {
  constructor() {
    super(
      `Keeper keeps at most ${MAX_SHARE_LINKS} share links and all of them are active; revoke ones no longer needed (a revoked link is forgotten to make room)`,
    );
  }
}

export const storedLinkSchema = z.object({
  id: z.string(),
  tokenHash: z.string(),
  path: z.string(),
  createdBy: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  revokedAt: z.number().optional(),
  note: z.string().optional(),
  /** Absent in links stored before scopes: they get legacyScope(path), their own page's reach. */
  scope: z.optional(shareScopeSchema),
});
export type StoredLink = z.infer<typeof storedLinkSchema>;
const fileSchema = z.object({ version: z.literal(1), links: z.array(storedLinkSchema) });

export type EndReason = 'revoked' | 'expired';
export type ResolveResult = { ok: true; link: ShareLinkView } | { ok: false; reason: 'unknown' | EndReason };

interface ShareLinkEvents {
  ended: [link: ShareLinkView, reason: EndReason];
}

function view(link: StoredLink): ShareLinkView {
  const { tokenHash: _hash, scope, ...rest } = link;
  return { ...rest, scope: scope ?? legacyScope(link.path) };
}

export class ShareLinkStore extends EventEmitter<ShareLinkEvents> {
  private readonly links = new Map<string, StoredLink>();
  private readonly byHash = new Map<string, string>();
  /** Links whose end was already announced (so expiry is announced once). */
  private readonly announced = new Set<string>();
  private readonly file: string | null;
  /** With replicas: writes a link made or revoked here to the home ensemble (replicas/sharedShareLinks.ts). */
  private publisher: ((link: StoredLink) => Promise<void>) | null = null;
  private readonly publishing = new Map<string, Promise<void>>();
  /** With replicas: looks in the home ensemble for links this replica has not seen yet. */
  private lookup: (() => Promise<void>) | null = null;
  /** With replicas: a link forgotten here is deleted from the home ensemble too. */
  private forgotten: ((id: string) => void) | null = null;

  /** stateDir null: in memory only (the open development mode). */
  constructor(
    stateDir: string | null,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.file = stateDir === null ? null : path.join(stateDir, SHARE_LINKS_FILE);
    if (stateDir !== null) ensureStateDir(stateDir);
    this.load();
  }

  /** Without a scope: the link's own page's reach (legacyScope). */
  create(spec: { path: string; scope?: ShareScope; expiresInMinutes: number; createdBy: string; note?: string }): { link: ShareLinkView; token: string } {
    if (this.links.size >= MAX_SHARE_LINKS) this.makeRoom();
    const token = randomToken();
    const at = this.now();
    const link: StoredLink = {
      id: randomToken(9),
      tokenHash: sha256Hex(token),
      path: spec.path,
      createdBy: spec.createdBy,
      createdAt: at,
      expiresAt: at + spec.expiresInMinutes * 60_000,
      ...(spec.note !== undefined ? { note: spec.note } : {}),
      scope: spec.scope ?? legacyScope(spec.path),
    };
    this.links.set(link.id, link);
    this.byHash.set(link.tokenHash, link.id);
    this.save();
    this.publish(link);
    return { link: view(link), token };
  }

  list(): ShareLinkView[] {
    return [...this.links.values()].sort((a, b) => b.createdAt - a.createdAt).map(view);
  }

  get(id: string): ShareLinkView | null {
    const link = this.links.get(id);
    return link ? view(link) : null;
  }

  /** Revokes a link; null if there is none with that id. Revoking twice is harmless. */
  revoke(id: string): ShareLinkView | null {
    const link = this.links.get(id);
    if (!link) return null;
    if (link.revokedAt === undefined) {
      link.revokedAt = this.now();
      this.save();
      this.publish(link);
    }
    this.announce(link, 'revoked');
    return view(link);
  }

  /** Every stored link as kept (token hashes included), for the replicas' shared store. */
  storedLinks(): StoredLink[] {
    return [...this.links.values()].map((link) => ({ ...link }));
  }

  /** Replicas: `publish` runs for each link made or revoked here; `published(id)` waits for it. */
  setPublisher(publish: (link: StoredLink) => Promise<void>): void {
    this.publisher = publish;
  }

  /** Replicas: how to look for links not seen yet, and what to do with a forgotten one. */
  setShared(shared: { lookup: () => Promise<void>; forgotten: (id: string) => void }): void {
    this.lookup = shared.lookup;
    this.forgotten = shared.forgotten;
  }

  /**
   * As resolve(), but an unknown token is looked for once more in the home ensemble (with replicas):
   * a link made on another replica moments ago, before this one's watch brought it in.
   */
  async resolveFresh(token: string): Promise<ResolveResult> {
    const found = this.resolve(token);
    if (found.ok || found.reason !== 'unknown' || !this.lookup) return found;
    await this.lookup();
    return this.resolve(token);
  }

  /** Replicas: a link deleted from the home ensemble once it ended is forgotten here too. */
  forgetEnded(id: string): void {
    const link = this.links.get(id);
    if (link && this.endReason(link)) this.forget(link);
  }

  /** Settles once the link's last change here is in the shared store (at once without replicas); never rejects. */
  published(id: string): Promise<void> {
    return this.publishing.get(id) ?? Promise.resolve();
  }

  /**
   * A link as another replica stored it: a new one is added, a revocation ends it here too (its
   * sessions and sockets, through 'ended'). A revoked link is never un-revoked. False when
   * nothing changed.
   */
  absorb(peer: StoredLink): boolean {
    const known = this.links.get(peer.id);
    if (!known) {
      this.links.set(peer.id, { ...peer });
      this.byHash.set(peer.tokenHash, peer.id);
      // Over before it reached this replica: nobody here can be bound to it, nothing to announce.
      if (this.endReason(peer)) this.announced.add(peer.id);
      this.save();
      return true;
    }
    if (known.revokedAt !== undefined || peer.revokedAt === undefined) return false;
    known.revokedAt = peer.revokedAt;
    this.save();
    this.announce(known, 'revoked');
    return true;
  }

  resolve(token: string): ResolveResult {
    const id = this.byHash.get(sha256Hex(token));
    const link = id === undefined ? undefined : this.links.get(id);
    if (!link) return { ok: false, reason: 'unknown' };
    const ended = this.endReason(link);
    return ended ? { ok: false, reason: ended } : { ok: true, link: view(link) };
  }

  /** The reach of an active link; null when the link is unknown or over. */
  scopeOf(id: string): ShareScope | null {
    const link = this.links.get(id);
    return link !== undefined && this.endReason(link) === null ? (link.scope ?? legacyScope(link.path)) : null;
  }

  isActive(id: string): boolean {
    const link = this.links.get(id);
    return link !== undefined && this.endReason(link) === null;
  }

  /** Announces links that expired since the last sweep, and forgets long-ended ones. */
  sweep(): void {
    const now = this.now();
    let changed = false;
    for (const link of this.links.values()) {
      const reason = this.endReason(link);
      if (reason) this.announce(link, reason);
      const endedAt = link.revokedAt ?? link.expiresAt;
      if (reason && now - endedAt > KEEP_ENDED_MS) {
        this.forget(link, false);
        changed = true;
      }
    }
    if (changed) this.save();
  }

  /** At the bound: the link that ended first is forgotten early; none ended, the new link is refused. */
  private makeRoom(): void {
    let oldest: StoredLink | null = null;
    for (const link of this.links.values()) {
      if (!this.endReason(link)) continue;
      const endedAt = link.revokedAt ?? link.expiresAt;
      if (!oldest || endedAt < (oldest.revokedAt ?? oldest.expiresAt)) oldest = link;
    }
    if (!oldest) throw new TooManyShareLinksError();
    this.announce(oldest, this.endReason(oldest) ?? 'expired');
    this.forget(oldest);
  }

  private forget(link: StoredLink, save = true): void {
    this.links.delete(link.id);
    this.byHash.delete(link.tokenHash);
    this.announced.delete(link.id);
    this.forgotten?.(link.id);
    if (save) this.save();
  }

  private endReason(link: StoredLink): EndReason | null {
    if (link.revokedAt !== undefined) return 'revoked';
    if (link.expiresAt <= this.now()) return 'expired';
    return null;
  }

  private publish(link: StoredLink): void {
    if (!this.publisher) return;
    const done = this.publisher({ ...link }).catch(() => undefined);
    this.publishing.set(link.id, done);
    void done.then(() => {
      if (this.publishing.get(link.id) === done) this.publishing.delete(link.id);
    });
  }

  private announce(link: StoredLink, reason: EndReason): void {
    if (this.announced.has(link.id)) return;
    this.announced.add(link.id);
    this.emit('ended', view(link), reason);
  }

  private load(): void {
    if (!this.file) return;
    const text = readFileIfExists(this.file);
    if (text === null) return;
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.file} is not a share-link file Keeper wrote: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    for (const link of parsed.data.links) {
      this.links.set(link.id, link);
      this.byHash.set(link.tokenHash, link.id);
      // Already over before this start: nobody can be bound to it, nothing to announce.
      if (this.endReason(link)) this.announced.add(link.id);
    }
  }

  private save(): void {
    if (!this.file) return;
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, links: [...this.links.values()] }, null, 1)}\n`);
  }
}

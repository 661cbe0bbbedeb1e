/**
 * An ensemble's identity for Keeper's durable state: what it is, not what the config calls it.
 * Two Keepers (or one config edited) may give the same name to different ensembles; state
 * written for one must never be read for the other. The identity is a digest of the members'
 * client addresses (sorted, lower-cased, so their order in the connection string does not
 * matter) and the chroot. Written here for the Locks view's memory; the upgrades work keys its
 * state the same way and may bring its own (the lead unifies them).
 */
import { createHash } from 'node:crypto';
import { parseConnectionString } from '../config/connectionString.js';

/** 16 hex characters; stable across restarts and key orders of the same members and chroot. */
export function ensembleIdentity(connectionString: string): string {
  const parsed = parseConnectionString(connectionString);
  const basis = parsed.ok
    ? JSON.stringify({ members: parsed.value.servers.map((h) => `${h.host.toLowerCase()}:${h.port}`).sort(), chroot: parsed.value.chroot ?? '' })
    : connectionString.trim().toLowerCase();
  return createHash('sha256').update(basis).digest('hex').slice(0, 16);
}

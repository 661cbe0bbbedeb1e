/**
 * Where an ensemble's durable state lives, and the identity that keys it: one directory per
 * ensemble identity (the id Keeper writes to /keeper/ensemble-id), shared by every part that keeps
 * some (locks' memory, upgrades, resizes). Here, below every domain folder, so those folders need
 * no import of ensemble/ to find their files or wait for the id (issue 35 part 3).
 */
import path from 'node:path';

export function ensembleStateDir(stateDir: string, id: string): string {
  return path.join(stateDir, 'ensembles', id);
}

/** What the domain folders read of an ensemble's identity (ensemble/ensembleIdentity.ts keeps it). */
export interface EnsembleIdentityReader {
  /** The id, or null while not known yet. */
  current(): string | null;
  /** Why the id is not known yet (the read failed, no access), or null. */
  whyUnknown(): string | null;
  /** Resolves with the id once it is known. */
  whenKnown(): Promise<string>;
}

/** Test and bench overrides for an ensemble's gateway (short deadlines, small caps). */
export interface GatewayDefaults {
  requestDeadlineMs?: number;
  sessionTimeoutMs?: number;
  maxInFlight?: number;
}

/**
 * Upgrades on disk: one JSON file per workflow under `<stateDir>/ensembles/<ensemble id>/upgrades/`,
 * keyed by the ensemble's identity (ensembleIdentity.ts), not its name: a Keeper pointed at another
 * ensemble of the same name never sees, let alone resumes, this one's upgrades. Written owner-only
 * and atomically (a crash mid-write leaves the previous version), validated with the shared schema
 * when read back. Past workflows are the history; the oldest go past HISTORY_KEPT. Without a state
 * directory (the open development mode) they live in memory only.
 *
 * Keepers before this kept them under `<stateDir>/upgrades/<ensemble name>/`. Those files move to
 * the identity's directory only when their plan names exactly this ensemble's members; the others
 * stay where they are for the Keeper of the ensemble they belong to.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { upgradeWorkflowSchema, type UpgradeWorkflow } from '@keeper/shared';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';
import { ensembleStateDir } from '../config/ensembleState.js';

export const HISTORY_KEPT = 50;
/** Ids are made here (randomUUID); anything else in a URL never reaches the file system. */
export const UPGRADE_ID = /^[0-9a-f-]{36}$/;

/** Where an ensemble's upgrades are kept. */
export const upgradesDir = (stateDir: string, ensembleId: string): string => path.join(ensembleStateDir(stateDir, ensembleId), 'upgrades');
/** Where Keepers before the identity kept them. */
export const nameKeyedUpgradesDir = (stateDir: string, ensembleName: string): string => path.join(stateDir, 'upgrades', ensembleName);

function readWorkflow(file: string, log: Logger): UpgradeWorkflow | null {
  try {
    const parsed = upgradeWorkflowSchema.safeParse(JSON.parse(readFileIfExists(file) ?? 'null'));
    if (parsed.success) return parsed.data;
    log.warn({ file, issues: parsed.error.issues.slice(0, 3) }, 'upgrade state file does not match the schema: ignored');
  } catch (error) {
    log.warn({ file, err: error }, 'upgrade state file unreadable: ignored');
  }
  return null;
}

const workflowFiles = (dir: string): string[] =>
  fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json') && UPGRADE_ID.test(f.replace(/\.json$/, ''))) : [];

const sameMembers = (wf: UpgradeWorkflow, members: readonly string[]): boolean => {
  const planned = wf.steps.map((s) => s.address).sort();
  const now = [...members].sort();
  return planned.length === now.length && planned.every((a, i) => a === now[i]);
};

/**
 * Moves this ensemble's name-keyed files (their plan names exactly `members`) into its identity's
 * directory; leaves the others, saying so. Returns the ids moved and left.
 */
export function migrateNameKeyed(
  stateDir: string,
  ensembleName: string,
  ensembleId: string,
  members: readonly string[],
  log: Logger,
): { moved: string[]; left: string[] } {
  const from = nameKeyedUpgradesDir(stateDir, ensembleName);
  const moved: string[] = [];
  const left: string[] = [];
  const files = workflowFiles(from);
  if (files.length === 0) return { moved, left };
  const to = upgradesDir(stateDir, ensembleId);
  for (const file of files) {
    const wf = readWorkflow(path.join(from, file), log);
    if (wf && sameMembers(wf, members)) {
      ensureStateDir(to);
      fs.renameSync(path.join(from, file), path.join(to, file));
      moved.push(wf.id);
    } else left.push(file.replace(/\.json$/, ''));
  }
  if (moved.length > 0) log.info({ from, to, moved }, "upgrade state files moved to the ensemble's identity");
  if (left.length > 0)
    log.warn({ from, left, members }, 'upgrade state files of an ensemble of the same name but other members: left where they are, not resumed');
  try {
    if (left.length === 0) fs.rmdirSync(from);
  } catch {
    // Something else in it: leave it.
  }
  return { moved, left };
}

export class UpgradeStore {
  private readonly dir: string | null;
  private readonly memory = new Map<string, UpgradeWorkflow>();

  /** `dir`: the identity's upgrades directory (upgradesDir), or null to keep them in memory only. */
  constructor(
    dir: string | null,
    private readonly log: Logger,
  ) {
    this.dir = dir;
    if (this.dir !== null) ensureStateDir(this.dir);
  }

  /** Every stored workflow, newest first; unreadable files are logged and left alone. */
  load(): UpgradeWorkflow[] {
    if (this.dir !== null) {
      for (const file of workflowFiles(this.dir)) {
        const wf = readWorkflow(path.join(this.dir, file), this.log);
        if (wf) this.memory.set(wf.id, wf);
      }
    }
    return this.list();
  }

  list(): UpgradeWorkflow[] {
    return [...this.memory.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  get(id: string): UpgradeWorkflow | null {
    return this.memory.get(id) ?? null;
  }

  save(wf: UpgradeWorkflow): void {
    const isNew = !this.memory.has(wf.id);
    this.memory.set(wf.id, wf);
    if (this.dir !== null) writeFileAtomic(path.join(this.dir, `${wf.id}.json`), JSON.stringify(wf));
    if (isNew) this.prune();
  }

  private prune(): void {
    const finished = this.list().filter((w) => w.finishedAt !== null);
    for (const old of finished.slice(HISTORY_KEPT)) {
      this.memory.delete(old.id);
      if (this.dir !== null) fs.rmSync(path.join(this.dir, `${old.id}.json`), { force: true });
    }
  }
}

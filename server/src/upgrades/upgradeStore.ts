/**
 * Upgrades on disk: one JSON file per workflow under <stateDir>/upgrades/<ensemble>/, written
 * owner-only and atomically (a crash mid-write leaves the previous version), validated with the
 * shared schema when read back. Past workflows are the history; the oldest go past HISTORY_KEPT.
 * Without a state directory (the open development mode) they live in memory only.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { upgradeWorkflowSchema, type UpgradeWorkflow } from '@keeper/shared';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';

export const HISTORY_KEPT = 50;
/** Ids are made here (randomUUID); anything else in a URL never reaches the file system. */
export const UPGRADE_ID = /^[0-9a-f-]{36}$/;

export class UpgradeStore {
  private readonly dir: string | null;
  private readonly memory = new Map<string, UpgradeWorkflow>();

  constructor(
    stateDir: string | null,
    ensemble: string,
    private readonly log: Logger,
  ) {
    this.dir = stateDir === null ? null : path.join(stateDir, 'upgrades', ensemble);
    if (this.dir !== null) {
      ensureStateDir(path.dirname(this.dir));
      ensureStateDir(this.dir);
    }
  }

  /** Every stored workflow, newest first; unreadable files are logged and left alone. */
  load(): UpgradeWorkflow[] {
    if (this.dir !== null) {
      for (const file of fs.readdirSync(this.dir)) {
        const id = file.replace(/\.json$/, '');
        if (!file.endsWith('.json') || !UPGRADE_ID.test(id)) continue;
        try {
          const parsed = upgradeWorkflowSchema.safeParse(JSON.parse(readFileIfExists(path.join(this.dir, file)) ?? 'null'));
          if (parsed.success) this.memory.set(parsed.data.id, parsed.data);
          else this.log.warn({ file, issues: parsed.error.issues.slice(0, 3) }, 'upgrade state file does not match the schema: ignored');
        } catch (error) {
          this.log.warn({ file, err: error }, 'upgrade state file unreadable: ignored');
        }
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

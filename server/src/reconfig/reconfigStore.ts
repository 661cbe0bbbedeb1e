/**
 * Resizes on disk: one JSON file per workflow under `<stateDir>/ensembles/<ensemble id>/reconfigs/`,
 * keyed by the ensemble's identity, written owner-only and atomically, validated when read back.
 * The oldest finished ones go past HISTORY_KEPT. Without a state directory they live in memory.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { reconfigWorkflowSchema, type ReconfigWorkflow } from '@keeper/shared';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';
import { ensembleStateDir } from '../config/ensembleState.js';

export const RECONFIG_HISTORY_KEPT = 50;
/** Ids are made here (randomUUID); anything else in a URL never reaches the file system. */
export const RECONFIG_ID = /^[0-9a-f-]{36}$/;

export const reconfigsDir = (stateDir: string, ensembleId: string): string => path.join(ensembleStateDir(stateDir, ensembleId), 'reconfigs');

export class ReconfigStore {
  private readonly memory = new Map<string, ReconfigWorkflow>();

  constructor(
    private readonly dir: string | null,
    private readonly log: Logger,
  ) {
    if (dir !== null) ensureStateDir(dir);
  }

  /** Every stored workflow, newest first; a file that does not parse is logged and left alone. */
  load(): ReconfigWorkflow[] {
    if (this.dir !== null) {
      for (const file of fs.readdirSync(this.dir).filter((f) => RECONFIG_ID.test(f.replace(/\.json$/, '')) && f.endsWith('.json'))) {
        try {
          const parsed = reconfigWorkflowSchema.safeParse(JSON.parse(readFileIfExists(path.join(this.dir, file)) ?? 'null'));
          if (parsed.success) this.memory.set(parsed.data.id, parsed.data);
          else this.log.warn({ file, issues: parsed.error.issues.slice(0, 3) }, 'reconfig state file does not match the schema: ignored');
        } catch (error) {
          this.log.warn({ file, err: error }, 'reconfig state file unreadable: ignored');
        }
      }
    }
    return this.list();
  }

  list(): ReconfigWorkflow[] {
    return [...this.memory.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  get(id: string): ReconfigWorkflow | null {
    return this.memory.get(id) ?? null;
  }

  save(wf: ReconfigWorkflow): void {
    const isNew = !this.memory.has(wf.id);
    this.memory.set(wf.id, wf);
    if (this.dir !== null) writeFileAtomic(path.join(this.dir, `${wf.id}.json`), JSON.stringify(wf));
    if (isNew) {
      for (const old of this.list()
        .filter((w) => w.finishedAt !== null)
        .slice(RECONFIG_HISTORY_KEPT)) {
        this.memory.delete(old.id);
        if (this.dir !== null) fs.rmSync(path.join(this.dir, `${old.id}.json`), { force: true });
      }
    }
  }
}

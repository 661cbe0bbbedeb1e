/** Reading an export file and laying out an import plan as rows an operator can scan. */
import { exportDocumentSchema, type ExportDocument, type ImportPlan } from '@keeper/shared';
import { formatCount } from '../../../lib/bytes';

export type ParsedExport = { ok: true; doc: ExportDocument } | { ok: false; reason: string };

export function parseExport(text: string): ParsedExport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `not JSON: ${(e as Error).message}` };
  }
  if (typeof json !== 'object' || json === null || (json as { format?: unknown }).format !== 'keeper-export') {
    return { ok: false, reason: 'not a Keeper export (its "format" is not "keeper-export"); export a subtree from Keeper first' };
  }
  const parsed = exportDocumentSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`);
    const more = parsed.error.issues.length > 3 ? ` (and ${parsed.error.issues.length - 3} more)` : '';
    return { ok: false, reason: `not a valid Keeper export: ${issues.join('; ')}${more}` };
  }
  return { ok: true, doc: parsed.data };
}

export type PlanKind = 'problems' | 'create' | 'update' | 'unchanged' | 'conflicts';

export const PLAN_KINDS: readonly { kind: PlanKind; label: string; tone: string }[] = [
  { kind: 'problems', label: 'Refused', tone: 'lost' },
  { kind: 'create', label: 'Create', tone: 'live' },
  { kind: 'update', label: 'Update', tone: 'degraded' },
  { kind: 'unchanged', label: 'Unchanged', tone: 'stale' },
  { kind: 'conflicts', label: 'Conflicts', tone: 'lost' },
];

export const CONFLICT_WORDS: Record<ImportPlan['conflicts'][number]['reason'], string> = {
  dataDiffers: 'data differs: left alone (tick "overwrite" to update it)',
  ephemeralInExport: 'ephemeral in the export: not recreated',
  ephemeralInTarget: 'an ephemeral is there now: left alone',
  invalidPath: 'not a valid path here',
  changedMeanwhile: 'changed while the plan was made',
  createFailed: 'could not be created',
};

/** What the server's dry run found that would make the import fail: any of these refuses it as a whole. */
export const PROBLEM_WORDS: Record<NonNullable<ImportPlan['problems']>[number]['reason'], string> = {
  tooLarge: 'too large: over the ensemble’s jute.maxbuffer',
  duplicatePath: 'listed twice in the file',
  invalidAcl: 'ACL ZooKeeper would refuse',
  aclLocksOut: 'its ACL would lock the console out (set it afterwards, typing the path back)',
  aclNotGranted: 'an ACL a writer may not give (only admins set ACLs)',
  aclDeniesChildren: 'its ACL would not let the console create its children',
  underZookeeper: 'under /zookeeper, ZooKeeper’s own',
};

export function problemCount(plan: ImportPlan): number {
  return plan.problemsTotal ?? plan.problems?.length ?? 0;
}

/** The sentence above a refused plan: how many problems, and the first one in full (the limit and how to raise it, for sizes). */
export function refusalWords(plan: ImportPlan): string | null {
  const n = problemCount(plan);
  const first = plan.problems?.[0];
  if (n === 0 || !first) return null;
  return `${formatCount(n)} ${n === 1 ? 'node' : 'nodes'} would fail, so nothing will be imported until the file is fixed. First: ${first.path}: ${first.detail}`;
}

export interface PlanRow {
  path: string;
  detail: string;
  /** The whole story, when the row shows only its gist. */
  title?: string;
}

export function planRows(plan: ImportPlan, kind: PlanKind): PlanRow[] {
  switch (kind) {
    case 'problems':
      return (plan.problems ?? []).map((p) => ({ path: p.path, detail: PROBLEM_WORDS[p.reason], title: `${PROBLEM_WORDS[p.reason]}: ${p.detail}` }));
    case 'create':
      return plan.create.map((path) => ({ path, detail: 'new' }));
    case 'update':
      return plan.update.map((u) => ({ path: u.path, detail: `set data at version ${u.version}` }));
    case 'unchanged':
      return plan.unchanged.map((path) => ({ path, detail: 'same data' }));
    case 'conflicts':
      return plan.conflicts.map((c) => ({ path: c.path, detail: CONFLICT_WORDS[c.reason] }));
    default: {
      const never: never = kind;
      return never;
    }
  }
}

export function planCounts(plan: ImportPlan): Record<PlanKind, number> {
  return {
    problems: problemCount(plan),
    create: plan.create.length,
    update: plan.update.length,
    unchanged: plan.unchanged.length,
    conflicts: plan.conflicts.length,
  };
}

/** The first tab worth looking at: what would refuse the import, then conflicts, else what will change. */
export function firstKind(plan: ImportPlan): PlanKind {
  if (problemCount(plan) > 0) return 'problems';
  if (plan.conflicts.length > 0) return 'conflicts';
  if (plan.create.length > 0) return 'create';
  if (plan.update.length > 0) return 'update';
  return 'unchanged';
}

/** Whether Apply can start anything: no problems, and something to change. */
export function canApply(plan: ImportPlan): boolean {
  return problemCount(plan) === 0 && plan.create.length + plan.update.length > 0;
}

export function applyWords(plan: ImportPlan): string {
  if (problemCount(plan) > 0) return 'Refused: fix the file';
  const n = plan.create.length + plan.update.length;
  return n === 0 ? 'Nothing to apply' : `Apply ${formatCount(n)} ${n === 1 ? 'change' : 'changes'}`;
}

/** A file name for an export: ensemble and path, readable, safe on every file system. */
export function exportFileName(ensemble: string, path: string, at: Date): string {
  const where = path === '/' ? 'root' : path.slice(1).replace(/[^A-Za-z0-9._-]+/g, '_');
  const stamp = at.toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return `${ensemble}-${where}-${stamp}.keeper-export.json`;
}

/**
 * Import as a plan first (the dry run shows it; the job applies a fresh one): for each exported
 * node, what the target holds decides whether it is created, updated, left unchanged, or is a
 * conflict left alone. Pure: the target's state is read by the caller.
 */
import { checkPath, type ExportNode, type ImportPlan } from '@keeper/shared';

export interface TargetState {
  sha256: string;
  version: number;
  ephemeral: boolean;
}

export function targetPathOf(root: string, rel: string): string {
  if (rel === '') return root;
  return root === '/' ? `/${rel}` : `${root}/${rel}`;
}

export function planImport(
  root: string,
  nodes: readonly (ExportNode & { sha256: string })[],
  target: ReadonlyMap<string, TargetState | null>,
  { overwrite }: { overwrite: boolean },
): ImportPlan {
  const plan: ImportPlan = { root, create: [], update: [], unchanged: [], conflicts: [] };
  // Parents before children, whatever order the file lists them in.
  const ordered = [...nodes].sort((a, b) => depth(a.rel) - depth(b.rel) || a.rel.localeCompare(b.rel));
  for (const node of ordered) {
    const path = targetPathOf(root, node.rel);
    if (!checkPath(path).ok || node.rel.startsWith('/') || node.rel.endsWith('/')) {
      plan.conflicts.push({ path, reason: 'invalidPath' });
      continue;
    }
    if (node.stat.ephemeral) {
      // An ephemeral belongs to a session; recreating it as persistent would change its meaning.
      plan.conflicts.push({ path, reason: 'ephemeralInExport' });
      continue;
    }
    const now = target.get(path) ?? null;
    if (now === null) plan.create.push(path);
    else if (now.sha256 === node.sha256) plan.unchanged.push(path);
    else if (now.ephemeral) plan.conflicts.push({ path, reason: 'ephemeralInTarget' });
    else if (overwrite) plan.update.push({ path, version: now.version });
    else plan.conflicts.push({ path, reason: 'dataDiffers' });
  }
  return plan;
}

function depth(rel: string): number {
  return rel === '' ? 0 : rel.split('/').length;
}

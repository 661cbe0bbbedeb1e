/**
 * The import arrows between a source tree's top-level folders (files at its root count as the
 * folder "(root)"), and the rule that keeps them in layers: every arrow runs down, never sideways
 * or back up, so no two folders can form a cycle. ESLint's rules name single forbidden arrows;
 * this names every arrow at once, so a new one that runs up is caught whichever folders it joins.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** from → to → the files of `from` that import `to`. */
export type FolderArrows = Map<string, Map<string, string[]>>;

const SOURCE = /\.tsx?$/;
const TEST = /\.test\.tsx?$/;
/** Relative imports, static, dynamic and re-exports: `from './x.js'`, `import('./x.js')`. */
const RELATIVE_IMPORT = /(?:\bfrom|\bimport\s*\()\s*['"](\.{1,2}\/[^'"]+)['"]/g;

const folderOf = (root: string, file: string): string => {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? parts[0]! : '(root)';
};

/** Every arrow between `root`'s folders, from its non-test TypeScript files. */
export function folderArrows(root: string): FolderArrows {
  const arrows: FolderArrows = new Map();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (SOURCE.test(entry.name) && !TEST.test(entry.name)) {
        const from = folderOf(root, path);
        for (const [, spec] of readFileSync(path, 'utf8').matchAll(RELATIVE_IMPORT)) {
          const target = resolve(dirname(path), spec!);
          if (relative(root, target).startsWith('..')) continue;
          const to = folderOf(root, target);
          if (to === from) continue;
          const byTarget = arrows.get(from) ?? new Map<string, string[]>();
          arrows.set(from, byTarget);
          byTarget.set(to, [...(byTarget.get(to) ?? []), relative(root, path)]);
        }
      }
    }
  };
  visit(root);
  return arrows;
}

/**
 * What breaks the layers, one sentence each: a folder no layer names, or an arrow that does not
 * run to a lower layer. `layers` lists the folders top first.
 */
export function layerProblems(arrows: FolderArrows, layers: readonly (readonly string[])[]): string[] {
  const level = new Map<string, number>();
  layers.forEach((folders, i) => folders.forEach((f) => level.set(f, layers.length - i)));
  const problems: string[] = [];
  const folders = new Set([...arrows.keys(), ...[...arrows.values()].flatMap((m) => [...m.keys()])]);
  for (const f of [...folders].sort()) if (!level.has(f)) problems.push(`${f}/ is in no layer: add it to the list, below what imports it`);
  for (const [from, targets] of arrows)
    for (const [to, files] of targets) {
      const a = level.get(from);
      const b = level.get(to);
      if (a === undefined || b === undefined || b < a) continue;
      problems.push(`${from} → ${to} runs ${b === a ? 'sideways' : 'back up'} (${files.join(', ')})`);
    }
  return problems;
}

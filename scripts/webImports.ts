/**
 * The web's import picture: which feature imports which, the cycles between features, and the
 * arrows running back up (a lower layer — ui, lib, socket, theme, app — importing a feature).
 * Run: npx tsx scripts/webImports.ts [--arrows]
 * It reads imports as written (static, `export … from` and dynamic `import()`), resolved against
 * the importing file; the lint rule in eslint.config.js keeps the picture this way.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../web/src/', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return walk(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

/** The area a file belongs to: `features/<name>` → the feature's name, else the top folder. */
function areaOf(file: string): { area: string; isFeature: boolean } | undefined {
  const parts = path.relative(src, file).split(path.sep);
  if (parts[0] === 'features' && parts.length > 2) return { area: parts[1]!, isFeature: true };
  if (parts.length > 1) return { area: parts[0]!, isFeature: false };
  return undefined; // main.tsx, App.tsx: the root composes everything
}

const importRe = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g;
const arrows = new Map<string, Set<string>>(); // feature → features
const upward: string[] = [];
for (const file of walk(src)) {
  if (/\.test\.tsx?$/.test(file)) continue;
  const from = areaOf(file);
  if (!from) continue;
  for (const m of readFileSync(file, 'utf8').matchAll(importRe)) {
    const to = areaOf(path.resolve(path.dirname(file), m[1]!));
    if (!to || to.area === from.area) continue;
    if (from.isFeature && to.isFeature) {
      if (!arrows.has(from.area)) arrows.set(from.area, new Set());
      arrows.get(from.area)!.add(to.area);
    } else if (!from.isFeature && to.isFeature) {
      upward.push(`${path.relative(src, file)} → features/${to.area}`);
    }
  }
}

/** Strongly connected components with more than one feature (Tarjan). */
function cycles(): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of arrows.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of arrows.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const pairs = [...arrows].flatMap(([a, bs]) => [...bs].map((b) => `${a} → ${b}`)).sort();
const mutual = pairs.filter((p) => {
  const [a, b] = p.split(' → ');
  return a! < b! && arrows.get(b!)?.has(a!);
});
if (process.argv.includes('--arrows')) for (const p of pairs) console.log(p);
console.log(`feature → feature arrows: ${pairs.length}`);
console.log(`two-way pairs: ${mutual.length}${mutual.length ? ` (${mutual.map((p) => p.replace('→', '↔')).join(', ')})` : ''}`);
const sccs = cycles();
console.log(`cyclic groups: ${sccs.length}${sccs.map((c) => `\n  {${c.join(', ')}}`).join('')}`);
console.log(`arrows back up (a lower layer importing a feature): ${upward.length}${upward.map((u) => `\n  ${u}`).join('')}`);

import { describe, expect, it } from 'vitest';
import type { ExportNode } from '@keeper/shared';
import { planImport, targetPathOf, type TargetState } from '../../src/ops/importPlan.js';

const node = (rel: string, sha256: string, ephemeral = false): ExportNode & { sha256: string } => ({
  rel,
  sha256,
  data: '',
  encoding: 'utf8',
  acl: [],
  stat: { version: 0, aversion: 0, cversion: 0, ctime: 0, mtime: 0, dataLength: 0, numChildren: 0, ephemeral },
});

const present = (sha256: string, version = 3, ephemeral = false): TargetState => ({ sha256, version, ephemeral });

describe('planImport', () => {
  const nodes = [node('a/b', 'h-ab'), node('', 'h-root'), node('a', 'h-a'), node('same', 'h-same'), node('eph', 'h-eph', true), node('x', 'h-x')];
  const target = new Map<string, TargetState | null>([
    ['/t', present('other-root', 5)],
    ['/t/a', null],
    ['/t/a/b', null],
    ['/t/same', present('h-same')],
    ['/t/x', present('their-x', 2, true)],
  ]);

  it('classifies each node, parents before children, and leaves differing data alone by default', () => {
    expect(planImport('/t', nodes, target, { overwrite: false })).toEqual({
      root: '/t',
      create: ['/t/a', '/t/a/b'],
      update: [],
      unchanged: ['/t/same'],
      conflicts: [
        { path: '/t', reason: 'dataDiffers' },
        { path: '/t/eph', reason: 'ephemeralInExport' },
        { path: '/t/x', reason: 'ephemeralInTarget' },
      ],
    });
  });

  it('updates differing data with the version it read when asked to overwrite', () => {
    const plan = planImport('/t', nodes, target, { overwrite: true });
    expect(plan.update).toEqual([{ path: '/t', version: 5 }]);
    expect(plan.conflicts.map((c) => c.reason)).toEqual(['ephemeralInExport', 'ephemeralInTarget']);
  });

  it('refuses relative paths that would escape or break the target', () => {
    const plan = planImport('/t', [node('../evil', 'h'), node('a//b', 'h'), node('/abs', 'h')], new Map(), { overwrite: true });
    expect(plan.create).toEqual([]);
    expect(plan.conflicts.map((c) => c.reason)).toEqual(['invalidPath', 'invalidPath', 'invalidPath']);
  });

  it('maps relative paths onto any root, including /', () => {
    expect(targetPathOf('/', '')).toBe('/');
    expect(targetPathOf('/', 'a/b')).toBe('/a/b');
    expect(targetPathOf('/t', 'a')).toBe('/t/a');
  });
});

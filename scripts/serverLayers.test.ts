/**
 * server/src's folders in layers (issue 35): every import runs down, so no folder cycle can form
 * and no lower folder learns of a higher one. A new folder is placed here on purpose.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderArrows, layerProblems, type FolderArrows } from './lib/folderGraph/index.js';

/** Top first: a folder imports only from the rows below its own. */
const SERVER_LAYERS = [
  ['(root)'],
  ['http'],
  ['hub'],
  ['metrics', 'topics'],
  ['ensemble'],
  ['replicas'],
  ['locks', 'upgrades', 'reconfig'],
  ['members', 'ops', 'workflows'],
  ['admin'],
  ['auth'],
  ['audit'],
  ['config'],
  ['lib', 'zk'],
] as const;

const arrows = (list: [string, string, string][]): FolderArrows => {
  const map: FolderArrows = new Map();
  for (const [from, to, file] of list) {
    const targets = map.get(from) ?? new Map<string, string[]>();
    map.set(from, targets);
    targets.set(to, [...(targets.get(to) ?? []), file]);
  }
  return map;
};

describe("server/src's folders in layers", () => {
  it('every import runs to a lower layer', () => {
    expect(layerProblems(folderArrows(resolve(import.meta.dirname, '../server/src')), SERVER_LAYERS)).toEqual([]);
  });

  it('an import back up, one sideways, and a folder no layer names are each refused by name', () => {
    const planted = arrows([
      ['config', 'replicas', 'config/types.ts'],
      ['locks', 'upgrades', 'locks/lockScans.ts'],
      ['ensemble', 'zk', 'ensemble/ensemble.ts'],
      ['newFolder', 'zk', 'newFolder/a.ts'],
    ]);
    expect(layerProblems(planted, SERVER_LAYERS)).toEqual([
      'newFolder/ is in no layer: add it to the list, below what imports it',
      'config → replicas runs back up (config/types.ts)',
      'locks → upgrades runs sideways (locks/lockScans.ts)',
    ]);
  });
});

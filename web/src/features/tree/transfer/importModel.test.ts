import { describe, expect, it } from 'vitest';
import { applyWords, canApply, exportFileName, firstKind, parseExport, planCounts, planRows, refusalWords } from './importModel';

const node = {
  rel: '',
  data: 'eA==',
  encoding: 'utf8',
  acl: [{ scheme: 'world', id: 'anyone', permissions: 31 }],
  stat: { version: 0, aversion: 0, cversion: 0, ctime: 1, mtime: 1, dataLength: 1, numChildren: 0, ephemeral: false },
};
const doc = { format: 'keeper-export', version: 1, ensemble: 'default', root: '/app', exportedAt: 1, nodes: [node] };

describe('parseExport', () => {
  it('reads a Keeper export', () => {
    expect(parseExport(JSON.stringify(doc))).toMatchObject({ ok: true, doc: { root: '/app' } });
  });
  it('says why other files are refused', () => {
    expect(parseExport('{nope')).toMatchObject({ ok: false, reason: expect.stringMatching(/^not JSON/) });
    expect(parseExport('{"a":1}')).toMatchObject({ ok: false, reason: expect.stringMatching(/not a Keeper export/) });
    expect(parseExport(JSON.stringify({ ...doc, nodes: [] }))).toMatchObject({ ok: false, reason: expect.stringMatching(/nodes/) });
  });
});

describe('plans', () => {
  const plan = {
    root: '/x',
    create: ['/x/a', '/x/b'],
    update: [{ path: '/x', version: 3 }],
    unchanged: [],
    conflicts: [{ path: '/x/c', reason: 'dataDiffers' as const }],
  };
  it('counts and lists by kind', () => {
    expect(planCounts(plan)).toEqual({ problems: 0, create: 2, update: 1, unchanged: 0, conflicts: 1 });
    expect(planRows(plan, 'update')).toEqual([{ path: '/x', detail: 'set data at version 3' }]);
    expect(planRows(plan, 'conflicts')[0]?.detail).toMatch(/overwrite/);
    expect(firstKind(plan)).toBe('conflicts');
    expect(applyWords(plan)).toBe('Apply 3 changes');
    expect(applyWords({ ...plan, create: [], update: [] })).toBe('Nothing to apply');
    expect(canApply(plan)).toBe(true);
    expect(refusalWords(plan)).toBeNull();
  });

  it('a plan with problems is refused as a whole and shows them first', () => {
    const refused = {
      ...plan,
      problems: [{ path: '/x/a', reason: 'tooLarge' as const, detail: '1,048,600 bytes, 25 over the ensemble’s limit of 1,048,575' }],
      problemsTotal: 3,
    };
    expect(firstKind(refused)).toBe('problems');
    expect(planCounts(refused).problems).toBe(3);
    expect(canApply(refused)).toBe(false);
    expect(applyWords(refused)).toMatch(/Refused/);
    expect(planRows(refused, 'problems')[0]).toEqual({
      path: '/x/a',
      detail: 'too large: over the ensemble’s jute.maxbuffer',
      title: expect.stringMatching(/jute\.maxbuffer: 1,048,600 bytes/),
    });
    expect(refusalWords(refused)).toMatch(/^3 nodes would fail.*First: \/x\/a: 1,048,600 bytes/);
  });
});

describe('exportFileName', () => {
  it('is readable and safe', () => {
    expect(exportFileName('prod', '/app/odd name %?#', new Date('2026-01-02T03:04:05Z'))).toBe('prod-app_odd_name_-2026-01-02-03-04-05.keeper-export.json');
    expect(exportFileName('prod', '/', new Date('2026-01-02T03:04:05Z'))).toBe('prod-root-2026-01-02-03-04-05.keeper-export.json');
  });
});

/** The replicas' audit window is pruned from its batches' names alone (replicas/sharedAudit.ts): no batch is read to bound it. */
import { describe, expect, it } from 'vitest';
import { batchesPastWindow, parseBatchName } from '../../src/replicas/sharedAudit.js';

const name = (entries: number, kib: number, seq: number) => `b${entries}-${kib}-${String(seq).padStart(10, '0')}`;

describe('the audit window', () => {
  it("reads a batch's entries, size and sequence from its name, and nothing else", () => {
    expect(parseBatchName('b12-3-0000000042')).toEqual({ name: 'b12-3-0000000042', entries: 12, kib: 3, seq: 42 });
    for (const other of ['b12-3-42', 'x12-3-0000000042', 'b12-3-0000000042x', '', 'b-3-0000000042']) expect(parseBatchName(other)).toBeNull();
  });

  it('drops the oldest batches past the entry bound, or past the byte bound, whichever comes first', () => {
    // Sequences are not contiguous (deletes count too): order by them, newest kept.
    const names = [name(40, 4, 7), name(40, 4, 3), name(40, 4, 12), 'unrelated'];
    expect(batchesPastWindow(names, 100, 1024 * 1024)).toEqual([name(40, 4, 3)]);
    expect(batchesPastWindow(names, 1_000, 8 * 1024)).toEqual([name(40, 4, 3)]);
    expect(batchesPastWindow(names, 1_000, 1024 * 1024)).toEqual([]);
    expect(batchesPastWindow([name(500, 60, 1)], 100, 1024 * 1024)).toEqual([name(500, 60, 1)]);
  });
});

import type { AuditAction } from '@keeper/shared';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog, readAuditFile } from '../../src/audit/auditLog.js';

const log = pino({ level: 'silent' });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entry = (action: AuditAction, path = '/a') => ({ action, outcome: 'ok' as const, actor: { name: 'ann', role: 'admin' as const, via: 'bearer' }, path });

describe('AuditLog', () => {
  it('appends durably, lists newest first with paging, and numbers on after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keeper-audit-'));
    dirs.push(dir);
    const audit = await AuditLog.open(dir, log);
    // Concurrent appends share a flush but keep their order and numbers.
    await Promise.all(Array.from({ length: 50 }, (_, i) => audit.append(entry('create', `/p${i}/${'é'.repeat(i * 100)}`))));
    await audit.close();
    expect(readAuditFile(dir).map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));

    // A torn last line (crash mid-write) is skipped, not fatal.
    appendFileSync(join(dir, 'audit.jsonl'), '{"seq":51,"at":1,"act');
    const reopened = await AuditLog.open(dir, log);
    const next = await reopened.append(entry('delete'));
    expect(next.seq).toBe(51);
    const newest = await reopened.list({ limit: 3 });
    expect(newest.map((e) => e.seq)).toEqual([51, 50, 49]);
    // Long lines straddle the 64 KiB read chunks: still read whole.
    const page = await reopened.list({ limit: 100, before: 49 });
    expect(page.map((e) => e.seq)).toEqual(Array.from({ length: 48 }, (_, i) => 48 - i));
    expect(page.at(-1)!.path).toBe('/p0/');
    await reopened.close();
  });

  it('keeps entries in memory in the open development mode', async () => {
    const audit = await AuditLog.open(null, log);
    await audit.append(entry('create'));
    await audit.append(entry('delete'));
    expect((await audit.list({ limit: 10 })).map((e) => e.action)).toEqual(['delete', 'create']);
    expect((await audit.list({ limit: 10, before: 2 })).map((e) => e.action)).toEqual(['create']);
  });
});

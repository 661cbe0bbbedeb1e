/**
 * What the Locks view remembers across restarts (issue 22, item 8), keyed by the ensemble's
 * identity (the /keeper/ensemble-id marker), never by its name: each ensemble's file lives in its
 * own state directory, and a file holding another identity is never read.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensembleStateDir } from '../../src/config/ensembleState.js';
import { LockMemory, MAX_HOLDS_PER_DIRECTORY } from '../../src/locks/lockMemory.js';
import { testLogger } from '../support/logger.js';

describe('LockMemory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-lock-memory-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const memory = (identity: string, maxScanned = 1_000) => new LockMemory(ensembleStateDir(dir, identity), identity, 'prod', maxScanned, testLogger);

  it('keeps scans and seen holds in an owner-only file named by the identity, and reads them back', () => {
    const m = memory('aaaa000011112222');
    expect(m.load()).toEqual({ scanned: [], holds: new Map() });
    m.saveSoon(() => ({ scanned: ['/a/lock', '/b/lock'], holds: new Map([['/a/lock', [{ name: 'x__lock__0000000001', ctime: 5, at: 9 }]]]) }));
    m.flush();
    const file = join(ensembleStateDir(dir, 'aaaa000011112222'), 'locks.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ identity: 'aaaa000011112222', ensemble: 'prod' });
    expect(memory('aaaa000011112222').load()).toEqual({
      scanned: ['/a/lock', '/b/lock'],
      holds: new Map([['/a/lock', [{ name: 'x__lock__0000000001', ctime: 5, at: 9 }]]]),
    });
    // Another ensemble of the same name reads its own (empty) file.
    expect(memory('bbbb000011112222').load().scanned).toEqual([]);
  });

  it('stays bounded: scans to maxTracked, holds per directory', () => {
    const m = memory('cccc000011112222', 3);
    const holds = Array.from({ length: MAX_HOLDS_PER_DIRECTORY + 10 }, (_, i) => ({ name: `n${i}`, ctime: i, at: i }));
    m.saveSoon(() => ({ scanned: ['/1', '/2', '/3', '/4', '/5'], holds: new Map([['/1', holds]]) }));
    m.flush();
    const back = memory('cccc000011112222', 3).load();
    expect(back.scanned).toEqual(['/1', '/2', '/3']);
    expect(back.holds.get('/1')).toHaveLength(MAX_HOLDS_PER_DIRECTORY);
  });

  it('sets a damaged file aside and starts from nothing, and ignores a file of another identity', () => {
    const m = memory('dddd000011112222');
    m.saveSoon(() => ({ scanned: ['/x'], holds: new Map() }));
    m.flush();
    const file = join(ensembleStateDir(dir, 'dddd000011112222'), 'locks.json');
    writeFileSync(file, '{"version":1,');
    expect(memory('dddd000011112222').load().scanned).toEqual([]);
    expect(existsSync(`${file}.bad`)).toBe(true);
    writeFileSync(file, JSON.stringify({ version: 1, identity: 'eeee000011112222', ensemble: 'prod', scanned: ['/y'], holds: {} }));
    expect(memory('dddd000011112222').load().scanned).toEqual([]);
  });
});

/** The class-data-sharing archive's life: one dump at a time, placed whole, then mapped by every later member. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveKey, planClassArchive } from './classArchive.js';

let root: string;
let dir: string;
let jar: string;
const java = process.execPath;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-archive-test-'));
  dir = path.join(root, 'archives');
  jar = path.join(root, 'zookeeper.jar');
  fs.writeFileSync(jar, 'jar v1');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const dumpTarget = (args: string[]) => /^-XX:ArchiveClassesAtExit=(.+)$/.exec(args[0] ?? '')?.[1];

describe('planClassArchive', () => {
  it('lets one JVM dump the archive while others start without it, then maps it for every later one', () => {
    const first = planClassArchive(java, jar, dir);
    const partial = dumpTarget(first.args);
    expect(partial).toBeDefined();
    // A second member launched meanwhile neither dumps nor reads a half-written archive.
    expect(planClassArchive(java, jar, dir).args).toEqual([]);
    fs.writeFileSync(partial!, 'archive');
    first.afterExit();
    const later = planClassArchive(java, jar, dir);
    expect(later.args).toEqual([`-XX:SharedArchiveFile=${path.join(dir, `zookeeper-${archiveKey(java, jar)}.jsa`)}`]);
    expect(fs.readdirSync(dir)).toEqual([`zookeeper-${archiveKey(java, jar)}.jsa`]);
  });

  it('forgets a dump that wrote nothing (a JVM killed with SIGKILL), so the next member tries again', () => {
    planClassArchive(java, jar, dir).afterExit();
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(dumpTarget(planClassArchive(java, jar, dir).args)).toBeDefined();
  });

  it('takes over a claim left by a launcher that died mid-dump, once it is stale', () => {
    planClassArchive(java, jar, dir);
    const claim = fs.readdirSync(dir).find((f) => f.endsWith('.dumping'))!;
    expect(planClassArchive(java, jar, dir).args).toEqual([]);
    const old = new Date(Date.now() - 11 * 60_000);
    fs.utimesSync(path.join(dir, claim), old, old);
    expect(dumpTarget(planClassArchive(java, jar, dir).args)).toBeDefined();
  });

  it('keys the archive by the JDK and every jar, so a changed jar gets a new one', () => {
    const before = archiveKey(java, jar);
    fs.writeFileSync(jar, 'jar v2, longer');
    expect(archiveKey(java, jar)).not.toBe(before);
    expect(archiveKey(java, `${jar}:${path.join(root, 'other.jar')}`)).not.toBe(archiveKey(java, jar));
  });

  it('starts without an archive when the cache cannot be written', () => {
    const file = path.join(root, 'not-a-dir');
    fs.writeFileSync(file, '');
    expect(planClassArchive(java, jar, path.join(file, 'sub')).args).toEqual([]);
  });
});

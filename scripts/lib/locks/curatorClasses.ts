/**
 * CuratorLocks.java compiled once per machine, source and classpath, so each Curator JVM starts
 * from classes instead of compiling its source again. Launched as a single-file source program,
 * a JVM compiles the source in memory at every start: about 4 s of CPU, and 13-21 s from spawn
 * to "ready" at load 13 on the 2-core machine, against 2-3 s from compiled classes with C1 only.
 *
 * The classes live under ~/.cache/keeper/curator-classes/<key>: compiled into a directory of
 * their own and renamed into place, so no JVM ever reads half a compilation, and two processes
 * compiling at once both end with the same directory. Without javac (or with a read-only cache)
 * the JVM falls back to the source launcher: slower, never wrong.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { archiveKey, defaultArchiveDir } from '../../sandbox/classArchive.js';

const run = promisify(execFile);

/** The JVM's class or source argument, and what goes on its classpath before the jars. */
export interface CuratorProgram {
  /** `-cp` value. */
  classpath: string;
  /** The main class (compiled) or the source file (source launcher). */
  main: string;
}

let compiled: Promise<CuratorProgram> | null = null;

/** Where the compiled classes are cached (beside the members' class-data archives). */
function cacheRoot(): string {
  return path.join(path.dirname(defaultArchiveDir()), 'curator-classes');
}

/** javac as PATH finds it (its real path names the JDK). */
function javacPath(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'javac');
    if (fs.existsSync(candidate)) return candidate;
  }
  return 'javac';
}

/** Changes with the source, the JDK, or a jar on the classpath. */
function keyOf(source: string, jars: string): string {
  const hash = createHash('sha256');
  hash.update(fs.readFileSync(source));
  hash.update(archiveKey(javacPath(), jars));
  return hash.digest('hex').slice(0, 24);
}

async function compile(source: string, jars: string): Promise<CuratorProgram> {
  const main = path.basename(source, '.java');
  const fallback = { classpath: jars, main: source };
  try {
    const root = cacheRoot();
    const final = path.join(root, keyOf(source, jars));
    if (fs.existsSync(path.join(final, `${main}.class`))) return { classpath: `${final}:${jars}`, main };
    fs.mkdirSync(root, { recursive: true });
    const partial = fs.mkdtempSync(path.join(root, 'compiling-'));
    try {
      await run('javac', ['-nowarn', '-cp', jars, '-d', partial, source], { timeout: 120_000 });
      try {
        fs.renameSync(partial, final);
      } catch {
        // Another process placed it first: theirs is the same.
      }
    } finally {
      fs.rmSync(partial, { recursive: true, force: true });
    }
    return fs.existsSync(path.join(final, `${main}.class`)) ? { classpath: `${final}:${jars}`, main } : fallback;
  } catch {
    return fallback;
  }
}

/** The compiled program, compiled at most once per process (and once per machine while the source is unchanged). */
export function curatorProgram(source: string, jars: string): Promise<CuratorProgram> {
  compiled ??= compile(source, jars);
  return compiled;
}

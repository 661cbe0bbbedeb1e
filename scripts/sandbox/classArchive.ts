/**
 * A class-data-sharing archive of ZooKeeper's classes, so a member JVM starts on less CPU. A
 * member's start costs about 1.7 s of CPU with the JDK's defaults; C1 alone (TieredStopAtLevel=1,
 * in memberProcess.ts) brings that to about 1.2 s, and this archive to about 1.0 s (JDK 17,
 * measured on the 2-core machine). The suite starts well over a hundred members, and on two
 * cores what one start spends, every test running beside it waits for.
 *
 * The archive is made once per machine, JDK and classpath: the first member launched without
 * one writes it as it exits (-XX:ArchiveClassesAtExit, under a temporary name renamed into place
 * once the JVM is gone, so no JVM ever reads half an archive), and every later one maps it
 * (-XX:SharedArchiveFile). A missing or unusable archive only costs speed: the JVM warns in the
 * member's log and runs without it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A dump that started this long ago and never finished was killed (SIGKILL writes nothing). */
const STALE_DUMP_MS = 10 * 60_000;

export interface ArchivePlan {
  /** Flags for the JVM. */
  args: string[];
  /** To call once the JVM has exited: places a fresh archive, or forgets a failed dump. */
  afterExit(): void;
}

const NONE: ArchivePlan = { args: [], afterExit: () => {} };

export function defaultArchiveDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || '/tmp', '.cache');
  return path.join(cacheHome, 'keeper', 'jvm-class-archives');
}

/** Changes whenever the JDK or a jar on the classpath does (path, size and time of each). */
export function archiveKey(java: string, classpath: string): string {
  const hash = createHash('sha256');
  for (const file of [java, ...classpath.split(':')]) {
    try {
      const real = fs.realpathSync(file);
      const st = fs.statSync(real);
      hash.update(`${real}\0${st.size}\0${st.mtimeMs}\n`);
    } catch {
      hash.update(`${file}\0missing\n`);
    }
  }
  return hash.digest('hex').slice(0, 24);
}

export function planClassArchive(java: string, classpath: string, dir = defaultArchiveDir()): ArchivePlan {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const final = path.join(dir, `zookeeper-${archiveKey(java, classpath)}.jsa`);
    if (fs.existsSync(final)) return { args: [`-XX:SharedArchiveFile=${final}`], afterExit: () => {} };
    const claim = `${final}.dumping`;
    if (!claimDump(claim)) return NONE;
    const partial = `${final}.${process.pid}.${Date.now()}.part`;
    return {
      args: [`-XX:ArchiveClassesAtExit=${partial}`],
      afterExit() {
        try {
          if (fs.existsSync(partial) && fs.statSync(partial).size > 0) fs.renameSync(partial, final);
        } finally {
          fs.rmSync(partial, { force: true });
          fs.rmSync(claim, { force: true });
        }
      },
    };
  } catch {
    // A read-only cache or a full disk: start without the archive.
    return NONE;
  }
}

/** One dump at a time per archive, across processes: the claim is a file created exclusively. */
function claimDump(claim: string): boolean {
  try {
    fs.writeFileSync(claim, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch {
    try {
      if (Date.now() - fs.statSync(claim).mtimeMs < STALE_DUMP_MS) return false;
      fs.rmSync(claim, { force: true });
      fs.writeFileSync(claim, `${process.pid}\n`, { flag: 'wx' });
      return true;
    } catch {
      return false;
    }
  }
}

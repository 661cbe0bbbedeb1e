/**
 * An older ZooKeeper build to upgrade from, so the sandbox can make a real build change: Debian
 * bookworm carries libzookeeper-java 3.8.0-11+deb12u1 (security pocket) beside the installed
 * +deb12u2. Both are 3.8.0; srvr tells them apart by "built on 2023-10-30" against "built on
 * 2024-12-29". The .deb is fetched once with `apt-get download` (signed by the archive, like any
 * apt download), unpacked into a cache directory and checked by asking its jar for its version.
 *
 * Nothing here throws for a missing network, apt or package: the answer says why, so callers
 * fall back to a plain rolling restart on the installed build and say so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findJava, findZooKeeperClasspath } from './classpath.js';
import { jarVersion } from './buildVersion.js';
import { runWithDeadline } from './runWithDeadline.js';

export const OLDER_BUILD = { package: 'libzookeeper-java', version: '3.8.0-11+deb12u1', builtOn: '2023-10-30' } as const;
const LABEL = `${OLDER_BUILD.package} ${OLDER_BUILD.version}`;
const DEBIAN_ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
/** What the .deb unpacks to: the server classes and the wire format (jute) of that build. */
const JARS = ['usr/share/java/zookeeper.jar', 'usr/share/java/zookeeper-jute.jar'];
const MARKER = 'build.json';

export interface OlderBuild {
  /** "libzookeeper-java 3.8.0-11+deb12u1". */
  label: string;
  /** What srvr reports for it: "3.8.0-${mvngit.commit.id}, built on 2023-10-30 14:21 UTC". */
  version: string;
  /** Absolute paths; they take the installed zookeeper.jar's place on the classpath. */
  jars: string[];
}

export type OlderBuildFetch = { ok: true; build: OlderBuild; fromCache: boolean } | { ok: false; reason: string };

export interface FetchOptions {
  /** Where unpacked builds are kept. Default ${XDG_CACHE_HOME:-~/.cache}/keeper/zookeeper-builds. */
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Deadline of the download; unpacking and checking have their own, shorter ones. Default 60 s. */
  downloadTimeoutMs?: number;
}

export function defaultBuildCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || '/tmp', '.cache');
  return path.join(cacheHome, 'keeper', 'zookeeper-builds');
}

/** One sentence for a person when the older build is not there. */
export function fallbackSentence(reason: string): string {
  return `the older ZooKeeper build (${LABEL}) cannot be used: ${reason}. Falling back to a plain rolling restart on the installed build (no build change).`;
}

/** The installed classpath with the older build's jars in place of zookeeper.jar. */
export function olderBuildClasspath(installed: string, build: OlderBuild): string {
  const entries = installed.split(':');
  const at = entries.findIndex((e) => path.basename(e) === 'zookeeper.jar');
  if (at < 0) throw new Error(`sandbox: the classpath has no zookeeper.jar to replace with ${build.label}: ${installed}`);
  return [...entries.slice(0, at), ...build.jars, ...entries.slice(at + 1)].join(':');
}

/** The build from the cache alone (no download), or null: what an offline run can still use. */
export function cachedOlderBuild(opts: Pick<FetchOptions, 'cacheDir' | 'env'> = {}): OlderBuild | null {
  const root = opts.cacheDir ?? defaultBuildCacheDir(opts.env ?? process.env);
  return readCached(path.join(root, `${OLDER_BUILD.package}_${OLDER_BUILD.version}`));
}

export async function fetchOlderBuild(opts: FetchOptions = {}): Promise<OlderBuildFetch> {
  const env = opts.env ?? process.env;
  const java = findJava(env);
  if (java === null) return { ok: false, reason: 'java not found' };
  const precondition = await whyNotDebian(env);
  if (precondition) return { ok: false, reason: precondition };

  const root = opts.cacheDir ?? defaultBuildCacheDir(env);
  const dir = path.join(root, `${OLDER_BUILD.package}_${OLDER_BUILD.version}`);
  const cached = readCached(dir);
  if (cached) return { ok: true, build: cached, fromCache: true };

  let work: string | null = null;
  try {
    fs.mkdirSync(root, { recursive: true });
    removeAbandonedWork(root);
    // A private work dir, renamed into place at the end: two runs fetching at once never see half a build.
    work = fs.mkdtempSync(path.join(root, '.fetch-'));
    const unpacked = path.join(work, 'build');
    const build = await download(work, unpacked, java, env, opts.downloadTimeoutMs ?? 60_000);
    fs.writeFileSync(path.join(unpacked, MARKER), `${JSON.stringify({ label: build.label, version: build.version })}\n`);
    try {
      fs.renameSync(unpacked, dir);
    } catch (err) {
      // Another run finished first: its build is the same one.
      if (!readCached(dir)) throw err;
    }
    const placed = readCached(dir);
    if (!placed) throw new Error(`the unpacked build in ${dir} is incomplete`);
    return { ok: true, build: placed, fromCache: false };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  } finally {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Debian's ZooKeeper must be what the sandbox runs, and must not be the older build already. */
async function whyNotDebian(env: NodeJS.ProcessEnv): Promise<string | null> {
  const classpath = findZooKeeperClasspath(env);
  if (classpath === null || !classpath.split(':').includes(DEBIAN_ZOOKEEPER_JAR)) {
    return `the sandbox does not run Debian's ZooKeeper (${env.ZOOKEEPER_HOME ? `ZOOKEEPER_HOME=${env.ZOOKEEPER_HOME}` : `no ${DEBIAN_ZOOKEEPER_JAR}`})`;
  }
  try {
    const { stdout } = await runWithDeadline('dpkg-query', ['-W', '-f', '${Version}', OLDER_BUILD.package], { timeoutMs: 10_000, env });
    if (stdout.trim() === OLDER_BUILD.version)
      return `the installed ${OLDER_BUILD.package} is ${OLDER_BUILD.version} itself: there is no newer build to upgrade to`;
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

async function download(work: string, unpacked: string, java: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<OlderBuild> {
  try {
    await runWithDeadline('apt-get', ['download', `${OLDER_BUILD.package}=${OLDER_BUILD.version}`], { cwd: work, timeoutMs, env });
  } catch (err) {
    const message = (err as Error).message;
    // apt knows only the versions its lists name: never updated, or bookworm-security not configured.
    const hint = /not found|Unable to locate/i.test(message) ? ' (is bookworm-security in the apt sources, and apt-get update run?)' : '';
    throw new Error(`${message}${hint}`);
  }
  const deb = fs.readdirSync(work).find((f) => f.endsWith('.deb'));
  if (!deb) throw new Error('apt-get download left no .deb');
  const debPath = path.join(work, deb);
  const { stdout: version } = await runWithDeadline('dpkg-deb', ['-f', debPath, 'Version'], { timeoutMs: 10_000, env });
  if (version.trim() !== OLDER_BUILD.version) throw new Error(`apt-get download gave version ${version.trim()}, not ${OLDER_BUILD.version}`);
  await runWithDeadline('dpkg-deb', ['-x', debPath, unpacked], { timeoutMs: 30_000, env });
  const jars = JARS.map((j) => path.join(unpacked, j));
  const missing = jars.filter((j) => !fs.existsSync(j));
  if (missing.length > 0) throw new Error(`the package has no ${missing.map((m) => path.basename(m)).join(', ')}`);
  // The jar itself must say it is the build we want: this is what srvr will show.
  const reported = await jarVersion(java, jars[0]!);
  if (!reported.includes(`built on ${OLDER_BUILD.builtOn}`)) throw new Error(`its zookeeper.jar reports "${reported}", not built on ${OLDER_BUILD.builtOn}`);
  return { label: LABEL, version: reported, jars };
}

/** Work dirs of fetches killed midway (a run interrupted by Ctrl-C); an hour is far past any fetch's deadline. */
function removeAbandonedWork(root: string): void {
  for (const name of fs.readdirSync(root)) {
    const dir = path.join(root, name);
    if (name.startsWith('.fetch-') && Date.now() - fs.statSync(dir).mtimeMs > 3_600_000) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The cached build, or null when it is absent or incomplete. */
function readCached(dir: string): OlderBuild | null {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8')) as { label?: unknown; version?: unknown };
    const jars = JARS.map((j) => path.join(dir, j));
    if (typeof marker.version !== 'string' || !jars.every((j) => fs.existsSync(j))) return null;
    return { label: LABEL, version: marker.version, jars };
  } catch {
    return null;
  }
}

/**
 * The version string a ZooKeeper jar reports, read from the jar itself: `org.apache.zookeeper.Version`
 * prints exactly what srvr's "Zookeeper version:" line will say once a member runs it, e.g.
 * "3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC" (Debian's build leaves the commit
 * placeholder unexpanded, so only the "built on" part tells two 3.8.0 builds apart).
 */
import { findJava, findZooKeeperClasspath, MISSING_ZOOKEEPER } from './classpath.js';
import { runWithDeadline } from './runWithDeadline.js';

const VERSION_TIMEOUT_MS = 20_000;

export async function jarVersion(java: string, zookeeperJar: string, timeoutMs = VERSION_TIMEOUT_MS): Promise<string> {
  const { stdout } = await runWithDeadline(java, ['-cp', zookeeperJar, 'org.apache.zookeeper.Version'], { timeoutMs });
  // SLF4J's warnings go to stderr; the version is the last line on stdout.
  const version = stdout.trim().split('\n').at(-1)?.trim() ?? '';
  if (!/^\d+\.\d+\.\d+/.test(version)) throw new Error(`${zookeeperJar} printed no version (got "${version}")`);
  return version;
}

/** The zookeeper.jar entry of a classpath (Debian's /usr/share/java/zookeeper.jar, or a release's zookeeper-3.x.y.jar). */
export function zookeeperJarOf(classpath: string): string | null {
  return classpath.split(':').find((entry) => /(^|\/)zookeeper(-\d+\.\d+\.\d+)?\.jar$/.test(entry)) ?? null;
}

/** What srvr will report once members run the installed build: the target of an upgrade from the older one. */
export async function installedBuildVersion(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const classpath = findZooKeeperClasspath(env);
  const jar = classpath === null ? null : zookeeperJarOf(classpath);
  if (jar === null) throw new Error(MISSING_ZOOKEEPER);
  const java = findJava(env);
  if (java === null) throw new Error('java not found');
  return jarVersion(java, jar);
}

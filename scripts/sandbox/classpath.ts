/** Where the ZooKeeper jars are: $ZOOKEEPER_HOME (a release tarball) first, then Debian's package. */
import fs from 'node:fs';
import path from 'node:path';

const DEBIAN_JAVA = '/usr/share/java';
// Without servlet-api the AdminServer silently fails to start; without slf4j-simple the
// server logs nothing at all (see shared/notes/zookeeper.md).
const DEBIAN_JARS = ['zookeeper.jar', 'servlet-api.jar', 'slf4j-simple.jar'];

function jarsIn(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.jar'))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

export function findZooKeeperClasspath(env: NodeJS.ProcessEnv = process.env): string | null {
  const home = env.ZOOKEEPER_HOME;
  if (home) {
    const jars = [...jarsIn(path.join(home, 'lib')), ...jarsIn(home)];
    if (jars.length > 0) {
      // conf/ holds the release's logback.xml; without it logback logs at DEBUG.
      const conf = path.join(home, 'conf');
      return [...(fs.existsSync(conf) ? [conf] : []), ...jars].join(':');
    }
  }
  if (fs.existsSync(path.join(DEBIAN_JAVA, 'zookeeper.jar'))) {
    return DEBIAN_JARS.map((j) => path.join(DEBIAN_JAVA, j))
      .filter((j) => fs.existsSync(j))
      .join(':');
  }
  return null;
}

/**
 * The jars a TLS (Netty) member needs beyond zookeeper.jar's manifest on Debian: without them it
 * logs ClassNotFoundException io.netty.handler.codec.ByteToMessageDecoder and drops every TLS
 * client (checked on this machine). A release's lib/ already has them.
 */
const NETTY_TLS_JARS = ['netty-resolver.jar', 'netty-codec.jar', 'netty-transport-native-unix-common.jar'];

export function withNettyTls(classpath: string): string {
  const present = new Set(classpath.split(':').map((j) => path.basename(j)));
  const extra = NETTY_TLS_JARS.filter((j) => !present.has(j))
    .map((j) => path.join(DEBIAN_JAVA, j))
    .filter((j) => fs.existsSync(j));
  return [classpath, ...extra].join(':');
}

export function findJava(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [
    ...(env.JAVA_HOME ? [path.join(env.JAVA_HOME, 'bin', 'java')] : []),
    ...(env.PATH ?? '')
      .split(':')
      .filter(Boolean)
      .map((d) => path.join(d, 'java')),
  ];
  return candidates.find((c) => isExecutable(c)) ?? null;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export const MISSING_ZOOKEEPER =
  'ZooKeeper not found: run scripts/setup.sh (Debian: apt-get install -y zookeeper), ' +
  'or unpack a release and set ZOOKEEPER_HOME, or point Keeper at an existing ensemble with --zk';

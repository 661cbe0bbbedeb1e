/**
 * Java's own ZooKeeper client (`zkCli.sh`'s ZooKeeperMain, from Debian's zookeeper package) as a
 * third-party client of a secure sandbox: TLS through its Netty socket with the sandbox's Java
 * client keystore, SASL DIGEST-MD5 through a JAAS "Client" section. One command per run (about
 * 2-8 s: a JVM each), as an operator would type it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findJava, findZooKeeperClasspath, withNettyTls } from '../../sandbox/classpath.js';
import type { SandboxSecurity } from '../../sandbox/security.js';

export interface ZkCliResult {
  code: number | null;
  /** stdout and stderr together, as zkCli prints them. */
  output: string;
}

export interface ZkCliIdentity {
  /** A DIGEST-MD5 user of the members' JAAS file; absent: no SASL. */
  user?: string;
  password?: string;
}

/** The JVM options of a TLS (+ SASL) client of the secure sandbox. */
export function zkCliJvmOptions(security: SandboxSecurity, identity: ZkCliIdentity = {}): string[] {
  const t = security.tls;
  const options = [
    '-Xmx64m',
    '-XX:+UseSerialGC',
    '-Dzookeeper.client.secure=true',
    '-Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty',
    `-Dzookeeper.ssl.keyStore.location=${t.javaClientKeystore}`,
    `-Dzookeeper.ssl.keyStore.password=${t.storePassword}`,
    '-Dzookeeper.ssl.keyStore.type=PKCS12',
    `-Dzookeeper.ssl.trustStore.location=${t.truststore}`,
    `-Dzookeeper.ssl.trustStore.password=${t.storePassword}`,
    '-Dzookeeper.ssl.trustStore.type=PKCS12',
  ];
  if (identity.user !== undefined) {
    const jaas = path.join(t.dir, `jaas-client-${identity.user}.conf`);
    fs.writeFileSync(
      jaas,
      `Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n  username="${identity.user}"\n  password="${identity.password ?? ''}";\n};\n`,
      { mode: 0o600 },
    );
    options.push(`-Djava.security.auth.login.config=${jaas}`);
  } else {
    options.push('-Dzookeeper.sasl.client=false');
  }
  return options;
}

/** Runs one zkCli command (`create /x data sasl:billing:cdrwa`) against `server` (host:port). */
export function zkCli(server: string, command: string[], security: SandboxSecurity, identity: ZkCliIdentity = {}, timeoutMs = 60_000): Promise<ZkCliResult> {
  const java = findJava();
  const classpath = findZooKeeperClasspath();
  if (!java || !classpath) throw new Error('zkCli needs java and ZooKeeper (scripts/setup.sh installs them)');
  const args = [...zkCliJvmOptions(security, identity), '-cp', withNettyTls(classpath), 'org.apache.zookeeper.ZooKeeperMain', '-server', server, ...command];
  return new Promise((resolve) => {
    execFile(java, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code as number) : null) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

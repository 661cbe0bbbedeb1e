/**
 * What a secure sandbox adds to each member: TLS-only client ports with the sandbox's own
 * certificates (certificates.ts), and SASL DIGEST-MD5 required of every session through a JAAS
 * file and three system properties (checked on this machine: shared notes, "SASL DIGEST-MD5").
 */
import fs from 'node:fs';
import path from 'node:path';
import { sandboxTls, type SandboxTls } from './certificates.js';
import type { TlsClientPem } from './fourLetterWord.js';
import type { SandboxSecureOptions } from './types.js';

export interface SandboxSecurity {
  tls: SandboxTls;
  clientAuth: 'need' | 'want' | 'none';
  /** The members' JAAS file (a "Server" section with DigestLoginModule), when SASL is required. */
  jaasFile: string | null;
  /** The DIGEST-MD5 users the members accept (name -> password), when SASL is required. */
  saslUsers: Record<string, string> | null;
  /** System properties every member starts with. */
  jvmFlags: string[];
  /** What a four-letter word over TLS needs (Keeper's client certificate). */
  pem: TlsClientPem;
}

/** JAAS quotes a value with "; a password holding one (or a backslash) cannot be written there. */
function jaasValue(text: string): string {
  if (/["\\\r\n]/.test(text)) throw new Error(`sandbox: a SASL name or password may not hold ", \\ or a line break: ${JSON.stringify(text)}`);
  return text;
}

export function prepareSecurity(stateDir: string, secure: SandboxSecureOptions): SandboxSecurity {
  const tls = sandboxTls(stateDir);
  const flags: string[] = [];
  let jaasFile: string | null = null;
  const users = secure.saslUsers && Object.keys(secure.saslUsers).length > 0 ? secure.saslUsers : null;
  if (secure.kerberos) {
    const k = secure.kerberos;
    jaasFile = path.join(stateDir, 'jaas-server.conf');
    fs.writeFileSync(
      jaasFile,
      `Server {\n  com.sun.security.auth.module.Krb5LoginModule required\n  useKeyTab=true\n  storeKey=true\n  useTicketCache=false\n  keyTab="${jaasValue(k.keytab)}"\n  principal="${jaasValue(k.principal)}";\n};\n`,
      { mode: 0o600 },
    );
    flags.push(
      `-Djava.security.auth.login.config=${jaasFile}`,
      `-Djava.security.krb5.conf=${k.krb5Conf}`,
      '-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider',
      '-Dzookeeper.sessionRequireClientSASLAuth=true',
    );
  } else if (users) {
    jaasFile = path.join(stateDir, 'jaas-server.conf');
    const lines = Object.entries(users).map(([name, password]) => `  user_${jaasValue(name)}="${jaasValue(password)}"`);
    fs.writeFileSync(jaasFile, `Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n${lines.join('\n')};\n};\n`, { mode: 0o600 });
    flags.push(
      `-Djava.security.auth.login.config=${jaasFile}`,
      '-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider',
      '-Dzookeeper.sessionRequireClientSASLAuth=true',
    );
  }
  const pem = { ca: fs.readFileSync(tls.ca.cert), cert: fs.readFileSync(tls.client.cert), key: fs.readFileSync(tls.client.key) };
  return { tls, clientAuth: secure.clientAuth ?? 'need', jaasFile, saslUsers: users, jvmFlags: flags, pem };
}

/** What Keeper's config needs to reach a secure sandbox (the shape of EnsembleConfig's tls and sasl). */
export interface KeeperSecureSettings {
  tls: { ca: string; cert: string; key: string };
  sasl?: { mechanism: 'DIGEST-MD5'; username: string; passwordFile: string };
}

/**
 * Keeper's TLS files and, when SASL is required, a DIGEST-MD5 password file for `user` (written
 * mode 0600 beside the JAAS file: Keeper reads the password from a file, never from its config).
 */
export function keeperSecureSettings(security: SandboxSecurity, user = 'keeper'): KeeperSecureSettings {
  const tls = { ca: security.tls.ca.cert, cert: security.tls.client.cert, key: security.tls.client.key };
  const password = security.saslUsers?.[user];
  if (password === undefined) return { tls };
  const passwordFile = path.join(path.dirname(security.tls.dir), `sasl-${user}.password`);
  fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  return { tls, sasl: { mechanism: 'DIGEST-MD5', username: user, passwordFile } };
}

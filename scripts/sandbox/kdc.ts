/**
 * A real MIT Kerberos KDC (Debian's krb5-kdc) on loopback, for a Kerberos (SASL GSSAPI) sandbox:
 * its own realm, database, krb5.conf and keytabs in a directory of its own, nothing of the
 * machine's /etc/krb5.conf used. `kdb5_util` makes the database, `kadmin.local` the principals
 * and keytabs (no kadmind), `krb5kdc -n` serves until closed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const SANDBOX_REALM = 'KEEPER.TEST';

export interface SandboxKdc {
  realm: string;
  port: number;
  /** The krb5.conf a client or a JVM uses (KRB5_CONFIG, -Djava.security.krb5.conf). */
  krb5Conf: string;
  /** Adds `principal` with a random key and writes its keytab; returns the keytab's path. */
  keytab(principal: string): string;
  close(): Promise<void>;
}

const SBIN = ['/usr/sbin', '/usr/bin'];

function tool(name: string): string {
  for (const dir of SBIN) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return file;
  }
  throw new Error(`sandbox KDC: ${name} is not installed (apt-get install krb5-kdc krb5-admin-server krb5-user; scripts/setup.sh --for-tests does)`);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export async function startKdc(dir: string, port: number, realm = SANDBOX_REALM): Promise<SandboxKdc> {
  fs.mkdirSync(dir, { recursive: true });
  const krb5Conf = path.join(dir, 'krb5.conf');
  const kdcConf = path.join(dir, 'kdc.conf');
  // TCP first (udp_preference_limit = 1, which Java and MIT both honour; Java does not read "tcp/"); no DNS: every name is as given.
  fs.writeFileSync(
    krb5Conf,
    [
      '[libdefaults]',
      `  default_realm = ${realm}`,
      '  dns_lookup_kdc = false',
      '  dns_lookup_realm = false',
      '  dns_canonicalize_hostname = false',
      '  rdns = false',
      '  udp_preference_limit = 1',
      '  ticket_lifetime = 1h',
      '[realms]',
      `  ${realm} = {`,
      `    kdc = 127.0.0.1:${port}`,
      '  }',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    kdcConf,
    [
      '[kdcdefaults]',
      `  kdc_ports = ${port}`,
      `  kdc_tcp_listen = 127.0.0.1:${port}`,
      `  kdc_listen = 127.0.0.1:${port}`,
      '[realms]',
      `  ${realm} = {`,
      `    database_name = ${path.join(dir, 'principal')}`,
      `    key_stash_file = ${path.join(dir, 'stash')}`,
      `    acl_file = ${path.join(dir, 'kadm5.acl')}`,
      '    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal',
      '  }',
      '[logging]',
      `  kdc = FILE:${path.join(dir, 'kdc.log')}`,
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'kadm5.acl'), '');
  const env = { ...process.env, KRB5_CONFIG: krb5Conf, KRB5_KDC_PROFILE: kdcConf };
  const run = (name: string, args: string[]): void => {
    const done = spawnSync(tool(name), args, { env, encoding: 'utf8', timeout: 30_000 });
    if (done.status !== 0) throw new Error(`sandbox KDC: ${name} ${args.join(' ')} failed: ${done.stderr || done.stdout || done.error?.message}`);
  };
  run('kdb5_util', ['create', '-s', '-r', realm, '-P', 'sandbox-master-key']);
  const kdc: ChildProcess = spawn(tool('krb5kdc'), ['-n', '-r', realm], { env, stdio: 'ignore' });
  let exited: string | null = null;
  kdc.on('exit', (code, signal) => (exited = signal ?? `code ${code}`));
  const deadline = Date.now() + 20_000;
  while (!(await portOpen(port))) {
    if (exited !== null) throw new Error(`sandbox KDC: krb5kdc ended (${exited}); see ${path.join(dir, 'kdc.log')}`);
    if (Date.now() > deadline) {
      kdc.kill('SIGKILL');
      throw new Error(`sandbox KDC: krb5kdc did not listen on 127.0.0.1:${port} within 20 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    realm,
    port,
    krb5Conf,
    keytab(principal) {
      const keytab = path.join(dir, `${principal.replace(/[^A-Za-z0-9.-]/g, '_')}.keytab`);
      run('kadmin.local', ['-r', realm, '-q', `addprinc -randkey ${principal}@${realm}`]);
      run('kadmin.local', ['-r', realm, '-q', `ktadd -k ${keytab} ${principal}@${realm}`]);
      return keytab;
    },
    async close() {
      if (exited !== null) return;
      const gone = new Promise((r) => kdc.once('exit', r));
      kdc.kill('SIGTERM');
      await gone;
    },
  };
}

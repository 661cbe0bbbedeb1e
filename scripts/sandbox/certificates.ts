/**
 * Certificates for a TLS sandbox, made with openssl and keytool (as the ZooKeeper admin guide
 * does): a CA of its own, a server certificate for 127.0.0.1 and localhost in a PKCS12
 * keystore, the CA in a PKCS12 truststore (keytool marks it trusted; openssl cannot), and client
 * certificates (PEM for Keeper, PKCS12 for Java clients such as zkCli). Tests also make the bad
 * ones here: expired, from another CA, for another host.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface CaFiles {
  cert: string;
  key: string;
}

export interface CertFiles {
  cert: string;
  key: string;
}

function run(command: string, args: string[], cwd: string): void {
  try {
    execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (error) {
    const e = error as { stderr?: Buffer; message: string };
    throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${e.stderr?.toString().trim() || e.message}`);
  }
}

/** A self-signed CA (RSA 2048, SHA-256). */
export function makeCa(dir: string, name: string, cn = `Keeper ${name} CA`): CaFiles {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = { cert: path.join(dir, `${name}-ca.pem`), key: path.join(dir, `${name}-ca.key`) };
  run(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '3650', '-subj', `/CN=${cn}`, '-keyout', files.key, '-out', files.cert],
    dir,
  );
  fs.chmodSync(files.key, 0o600);
  return files;
}

export interface CertSpec {
  /** File name stem. */
  name: string;
  /** The subject's common name: what x509 ACLs name ("CN=keeper"). */
  cn: string;
  /** Further subject attributes after the CN, in openssl's form ("/OU=ops": ZooKeeper then names it "OU=ops,CN=keeper"). */
  subjectTail?: string;
  /** subjectAltName, e.g. "IP:127.0.0.1,DNS:localhost"; none for a client certificate. */
  san?: string;
  /** Validity in days; -1 makes one that has already expired. */
  days?: number;
}

/** A certificate signed by `ca`, with its key (PEM). */
export function makeCert(ca: CaFiles, dir: string, spec: CertSpec): CertFiles {
  const key = path.join(dir, `${spec.name}.key`);
  const csr = path.join(dir, `${spec.name}.csr`);
  const cert = path.join(dir, `${spec.name}.pem`);
  const ext = path.join(dir, `${spec.name}.ext`);
  run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-subj', `/CN=${spec.cn}${spec.subjectTail ?? ''}`, '-keyout', key, '-out', csr], dir);
  fs.writeFileSync(ext, spec.san ? `subjectAltName=${spec.san}\n` : 'basicConstraints=CA:FALSE\n');
  run(
    'openssl',
    [
      'x509',
      '-req',
      '-sha256',
      '-in',
      csr,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-CAcreateserial',
      '-out',
      cert,
      '-days',
      String(spec.days ?? 3650),
      '-extfile',
      ext,
    ],
    dir,
  );
  fs.rmSync(csr, { force: true });
  fs.rmSync(ext, { force: true });
  fs.chmodSync(key, 0o600);
  return { cert, key };
}

/** A PKCS12 keystore holding a certificate and its key (Java's ssl.keyStore). */
export function makeKeystore(files: CertFiles, p12: string, password: string, alias: string): void {
  run('openssl', ['pkcs12', '-export', '-in', files.cert, '-inkey', files.key, '-name', alias, '-out', p12, '-passout', `pass:${password}`], path.dirname(p12));
  fs.chmodSync(p12, 0o600);
}

/** A PKCS12 truststore trusting one CA certificate (Java's ssl.trustStore). */
export function makeTruststore(caCert: string, p12: string, password: string): void {
  fs.rmSync(p12, { force: true });
  run(
    'keytool',
    ['-importcert', '-noprompt', '-alias', 'ca', '-file', caCert, '-keystore', p12, '-storetype', 'PKCS12', '-storepass', password],
    path.dirname(p12),
  );
}

/** Everything a TLS sandbox's members and clients need, in `<stateDir>/tls`. */
export interface SandboxTls {
  dir: string;
  ca: CaFiles;
  /** The members' certificate (CN=zookeeper, for 127.0.0.1 and localhost) in a keystore. */
  serverKeystore: string;
  truststore: string;
  /** Password of the PKCS12 stores (the sandbox's own, random; mode 0600 on disk). */
  storePassword: string;
  /** Keeper's client certificate (CN=keeper), PEM. */
  client: CertFiles;
  /** Another client's (CN=client), PKCS12 for Java clients such as zkCli. */
  javaClientKeystore: string;
}

const MARKER = 'generated-by-keeper-sandbox';

/**
 * Makes the files once per state dir and keeps them (npm start reuses them across runs, so a
 * browser's or zkCli's trust survives a restart); made afresh when any is missing or the server
 * certificate expires within 30 days.
 */
export function sandboxTls(stateDir: string): SandboxTls {
  const dir = path.join(stateDir, 'tls');
  const passwordFile = path.join(dir, 'store.password');
  const files: SandboxTls = {
    dir,
    ca: { cert: path.join(dir, 'sandbox-ca.pem'), key: path.join(dir, 'sandbox-ca.key') },
    serverKeystore: path.join(dir, 'server.p12'),
    truststore: path.join(dir, 'truststore.p12'),
    storePassword: '',
    client: { cert: path.join(dir, 'keeper.pem'), key: path.join(dir, 'keeper.key') },
    javaClientKeystore: path.join(dir, 'client.p12'),
  };
  const all = [
    files.ca.cert,
    files.ca.key,
    files.serverKeystore,
    files.truststore,
    files.client.cert,
    files.client.key,
    files.javaClientKeystore,
    passwordFile,
  ];
  const fresh = all.every((f) => fs.existsSync(f)) && fs.existsSync(path.join(dir, MARKER)) && !expiresSoon(path.join(dir, 'server.pem'));
  if (fresh) return { ...files, storePassword: fs.readFileSync(passwordFile, 'utf8').trim() };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const storePassword = randomBytes(12).toString('hex');
  fs.writeFileSync(passwordFile, `${storePassword}\n`, { mode: 0o600 });
  makeCa(dir, 'sandbox', 'Keeper sandbox CA');
  const server = makeCert(files.ca, dir, { name: 'server', cn: 'zookeeper', san: 'IP:127.0.0.1,DNS:localhost' });
  makeKeystore(server, files.serverKeystore, storePassword, 'server');
  makeTruststore(files.ca.cert, files.truststore, storePassword);
  makeCert(files.ca, dir, { name: 'keeper', cn: 'keeper' });
  const javaClient = makeCert(files.ca, dir, { name: 'client', cn: 'client' });
  makeKeystore(javaClient, files.javaClientKeystore, storePassword, 'client');
  fs.writeFileSync(path.join(dir, MARKER), `${new Date().toISOString()}\n`);
  return { ...files, storePassword };
}

function expiresSoon(certFile: string): boolean {
  try {
    execFileSync('openssl', ['x509', '-checkend', String(30 * 24 * 3600), '-noout', '-in', certFile], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

/**
 * The TLS side of one ensemble: its CA, client certificate and key, read from PEM files at start
 * and read again whenever a file changes (checked before each new connection: a stat of three
 * files), so a rotated certificate is used on the next connection without a restart. Both the
 * console's session and the member poller's four-letter words and AdminServer requests use it.
 *
 * A file that cannot be read or used is not fatal: each connection attempt fails with a
 * TlsFileError that says which file and why, and the next attempt reads it again.
 */
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';

export interface TlsSettings {
  /** PEM file of the CA(s) that sign the members' certificates. */
  ca: string;
  /** PEM client certificate and key for mutual TLS (ssl.clientAuth=need); both or neither. */
  cert?: string;
  key?: string;
  /** The name to check the members' certificates against (and send as SNI); default: the host Keeper dials. */
  servername?: string;
  /** Default true. false accepts any certificate: warned on start and in the ensemble's header. */
  rejectUnauthorized?: boolean;
  /** The members' AdminServer: plain HTTP (ZooKeeper's default, also with TLS on the client port) or https. */
  adminServer?: 'http' | 'https';
}

export class TlsFileError extends Error {
  override readonly name = 'TlsFileError';
}

interface Loaded {
  stamp: string;
  context: tls.SecureContext;
}

type FileRole = 'ca' | 'cert' | 'key';

const ROLE_NAMES: Record<FileRole, string> = { ca: 'CA file', cert: 'client certificate file', key: 'client key file' };

export class TlsMaterial {
  private loaded: Loaded | null = null;
  /** Times the files were (re)read: 1 after the first connection; for tests. */
  loads = 0;

  constructor(readonly settings: TlsSettings) {}

  get verifies(): boolean {
    return this.settings.rejectUnauthorized !== false;
  }

  get mutual(): boolean {
    return this.settings.cert !== undefined;
  }

  /** One line for logs and the header: what is checked, never a secret. */
  describe(): string {
    const check = this.verifies
      ? `server certificate checked against ${this.settings.ca}${this.settings.servername ? ` for ${this.settings.servername}` : ''}`
      : 'server certificate NOT checked (rejectUnauthorized: false)';
    return `TLS, ${check}${this.mutual ? ', client certificate presented' : ''}`;
  }

  /** The warning a config with rejectUnauthorized: false carries, else null. */
  warning(): string | null {
    return this.verifies
      ? null
      : 'TLS without verification (rejectUnauthorized: false): any server, or anyone between Keeper and it, can pose as the ensemble and read what Keeper sends';
  }

  /** Options for tls.connect to one member; the files are read again first if any changed. Throws TlsFileError. */
  connectOptions(host: string, port: number): tls.ConnectionOptions {
    const context = this.context();
    const servername = this.settings.servername ?? (net.isIP(host) ? undefined : host);
    return {
      host,
      port,
      secureContext: context,
      rejectUnauthorized: this.verifies,
      // Node checks the certificate against servername when given, else against the host (an IP
      // address against the certificate's IP entries; SNI is never sent for an IP address).
      ...(servername !== undefined ? { servername } : {}),
    };
  }

  /** Reads the files when they changed since the last read (or never were read). */
  private context(): tls.SecureContext {
    const roles: FileRole[] = ['ca', ...(this.settings.cert !== undefined ? (['cert', 'key'] as const) : [])];
    const stamp = roles.map((role) => `${role}:${fileStamp(this.path(role), role)}`).join('|');
    if (this.loaded?.stamp === stamp) return this.loaded.context;
    const pem = Object.fromEntries(roles.map((role) => [role, readPem(this.path(role), role)])) as Partial<Record<FileRole, Buffer>>;
    let context: tls.SecureContext;
    try {
      context = tls.createSecureContext({ ca: pem.ca, ...(pem.cert ? { cert: pem.cert, key: pem.key } : {}) });
    } catch (error) {
      throw new TlsFileError(
        `TLS: cannot use ${this.settings.cert ? `${this.settings.cert} with ${this.settings.key}` : this.settings.ca}: ${opensslReason(error)}`,
      );
    }
    this.loaded = { stamp, context };
    this.loads++;
    return context;
  }

  private path(role: FileRole): string {
    return this.settings[role] as string;
  }
}

function fileStamp(file: string, role: FileRole): string {
  try {
    const s = fs.statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (error) {
    throw new TlsFileError(`TLS: cannot read the ${ROLE_NAMES[role]} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function readPem(file: string, role: FileRole): Buffer {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (error) {
    throw new TlsFileError(`TLS: cannot read the ${ROLE_NAMES[role]} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!data.toString('latin1').includes('-----BEGIN ')) throw new TlsFileError(`TLS: the ${ROLE_NAMES[role]} ${file} is not PEM (no "-----BEGIN" line)`);
  return data;
}

function opensslReason(error: unknown): string {
  const e = error as { message?: string; reason?: string };
  return e.reason ?? e.message ?? String(error);
}

/**
 * A TLS failure in an operator's words: whose certificate, what is wrong, what to change. Null
 * when the error is not about TLS (connection refused, a reset after the handshake): those keep
 * their usual meaning (down, unreachable).
 */
export function tlsFailureSentence(error: unknown, address: string, handshakeDone: boolean, settings: TlsSettings | null): string | null {
  if (error instanceof TlsFileError) return error.message;
  const e = error as NodeJS.ErrnoException & { reason?: string };
  const code = e.code ?? '';
  const ca = settings?.ca ?? 'the configured CA';
  switch (code) {
    case 'CERT_HAS_EXPIRED':
      return `TLS: the certificate of ${address} has expired`;
    case 'CERT_NOT_YET_VALID':
      return `TLS: the certificate of ${address} is not valid yet (check the clocks)`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_SIGNATURE_FAILURE':
      return `TLS: the certificate of ${address} is not signed by a CA in ${ca} (${code})`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS: the certificate of ${address} does not name the host: ${e.reason ?? e.message} (set "servername" to a name it carries, or fix its subjectAltName)`;
    case 'CERT_REVOKED':
      return `TLS: the certificate of ${address} is revoked`;
    default:
      break;
  }
  const alert = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_(.+)$/.exec(code);
  if (alert) {
    const what = (alert[1] as string).toLowerCase().replace(/_/g, ' ');
    return `TLS: ${address} refused the handshake (${what})${settings?.cert ? ': it does not accept Keeper’s client certificate' : ': it may require a client certificate ("cert" and "key")'}`;
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' || code === 'EPROTO') {
    return `TLS: ${address} does not speak TLS on this port (its answer is not a TLS handshake): is it the plain client port?`;
  }
  if (!handshakeDone && (code === 'ECONNRESET' || code === 'EPIPE' || /before secure TLS connection/.test(e.message ?? ''))) {
    return `TLS: ${address} closed the connection during the TLS handshake: it may not speak TLS on this port (a plain client port?), or it refused Keeper’s certificate`;
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return `TLS: handshake with ${address} failed: ${e.reason ?? e.message ?? code}`;
  return null;
}

/**
 * Does this port answer a TLS ClientHello with a TLS handshake? Told apart by the handshake
 * itself, whatever the certificates: a member that speaks TLS either completes it or sends a TLS
 * alert; a plain port closes or resets. For saying "plain client to a TLS port" instead of a
 * mute close. Null when the port gave no verdict within `timeoutMs` (a loaded JVM can take
 * longer over a handshake): not known, so not to be remembered as plain. Never rejects.
 */
export function speaksTls(host: string, port: number, timeoutMs = 2_000): Promise<boolean | null> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: boolean | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const socket = tls.connect({ host, port, rejectUnauthorized: false, ...(net.isIP(host) ? {} : { servername: host }) });
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('secureConnect', () => done(true));
    socket.on('error', (error: NodeJS.ErrnoException) => done(/^ERR_SSL_(SSLV3|TLSV1|TLSV13)_ALERT_/.test(error.code ?? '')));
    socket.on('close', () => done(false));
  });
}

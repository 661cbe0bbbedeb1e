/**
 * SASL as the console's session does it (op code 102, before any other request): which
 * mechanism, where its secret comes from, and how a refusal reads. The secret is read again for
 * every connection (a password file fixed after a refusal heals without a restart) and never
 * logged, sent to browsers or kept beyond the exchange.
 */
import fs from 'node:fs';
import { DigestMd5Client, SaslError } from './digestMd5.js';
import { gssapiMechanism } from './gssapi.js';
import { ZK_ERROR_NAMES } from './errors.js';

export type SaslSettings =
  | {
      mechanism: 'DIGEST-MD5';
      username: string;
      /** A file holding the password (one line; a trailing newline is ignored). */
      passwordFile?: string;
      /** The name of an environment variable holding the password. */
      passwordEnv?: string;
    }
  | {
      mechanism: 'GSSAPI';
      /** Keeper's Kerberos principal, e.g. keeper@EXAMPLE.COM. */
      principal: string;
      /** The keytab holding its key. */
      keytab: string;
      /** The members' service name: the first part of their principal zookeeper/<host>@REALM (default "zookeeper"). */
      serviceName?: string;
      /** The host part of the members' principal; default: the host Keeper dials. */
      serviceHost?: string;
    };

/** One exchange with one member: the first token, then one token per server challenge. */
export interface SaslMechanism {
  readonly mechanism: string;
  /** True once the member proved itself and nothing more is to be sent. */
  readonly complete: boolean;
  start(): Buffer | Promise<Buffer>;
  /** The next token to send, or null when nothing more is to be sent. Throws SaslError. */
  step(serverToken: Buffer | null): Buffer | null | Promise<Buffer | null>;
}

export { SaslError };

/** Where a DIGEST-MD5 password comes from, in words (never the password). */
export function passwordSource(settings: Extract<SaslSettings, { mechanism: 'DIGEST-MD5' }>): string {
  return settings.passwordFile !== undefined ? `password file ${settings.passwordFile}` : `environment variable ${settings.passwordEnv ?? '(none)'}`;
}

export function readSaslPassword(settings: Extract<SaslSettings, { mechanism: 'DIGEST-MD5' }>, env: NodeJS.ProcessEnv): string {
  if (settings.passwordFile !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(settings.passwordFile, 'utf8');
    } catch (error) {
      throw new SaslError(
        `SASL DIGEST-MD5: cannot read the password file ${settings.passwordFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    const password = text.replace(/\r?\n$/, '');
    if (password === '') throw new SaslError(`SASL DIGEST-MD5: the password file ${settings.passwordFile} is empty`);
    return password;
  }
  const name = settings.passwordEnv ?? '';
  const value = env[name];
  if (value === undefined || value === '') throw new SaslError(`SASL DIGEST-MD5: the environment variable ${name} is not set`);
  return value;
}

/** A mechanism for one connection to `host`. Throws SaslError when its secret cannot be had. */
export type SaslFactory = (host: string) => SaslMechanism | Promise<SaslMechanism>;

export function saslFactory(
  settings: SaslSettings,
  env: NodeJS.ProcessEnv = process.env,
  gssapi: ((host: string) => Promise<SaslMechanism>) | null = settings.mechanism === 'GSSAPI' ? (host) => gssapiMechanism(settings, host, env) : null,
): SaslFactory {
  switch (settings.mechanism) {
    case 'DIGEST-MD5':
      return () => new DigestMd5Client({ username: settings.username, password: readSaslPassword(settings, env) });
    case 'GSSAPI':
      return (host) => {
        if (!gssapi) throw new SaslError('SASL GSSAPI: Kerberos is not available in this Keeper build');
        return gssapi(host);
      };
    default: {
      const never: never = settings;
      throw new Error(`unknown SASL mechanism ${JSON.stringify(never)}`);
    }
  }
}

/** Who Keeper authenticates as, for logs and the header. */
export function saslIdentity(settings: SaslSettings): string {
  return settings.mechanism === 'DIGEST-MD5' ? settings.username : settings.principal;
}

/**
 * The member's error answer to a SASL packet, in words. On the first packet it refused the
 * mechanism itself (a Kerberos-only member given DIGEST-MD5, or the reverse); later, the
 * credentials.
 */
export function saslRefusal(settings: SaslSettings, err: number, firstPacket: boolean, address: string): string {
  const code = `${ZK_ERROR_NAMES[err] ?? `error ${err}`} (${err})`;
  const mechanism = settings.mechanism;
  if (firstPacket) {
    return `SASL ${mechanism}: ${address} refused the mechanism (${code}): check that its JAAS "Server" section is set up for ${mechanism === 'GSSAPI' ? 'Kerberos (Krb5LoginModule)' : 'DIGEST-MD5 (DigestLoginModule)'}`;
  }
  if (mechanism === 'DIGEST-MD5') {
    return `SASL DIGEST-MD5: ${address} refused user "${settings.username}": wrong password or unknown user (${code}); check ${passwordSource(settings)} and the JAAS "Server" section's user_${settings.username}`;
  }
  return `SASL GSSAPI: ${address} refused principal ${settings.principal} (${code}); check the keytab ${settings.keytab} and the member's Kerberos principal`;
}

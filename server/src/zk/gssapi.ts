/**
 * SASL GSSAPI (Kerberos) for the console's session, as ZooKeeper's Java client does it
 * (ZooKeeperSaslClient over Java's GssKrb5Client, RFC 4752):
 *  1. the Kerberos context: Keeper's AP-REQ, the member's AP-REP (mutual authentication);
 *  2. an empty token once the context is established, asking for the security layer;
 *  3. the member's wrapped offer (4 bytes); Keeper answers, wrapped, "no security layer" with its
 *     principal as the authorization id; the member then counts the exchange done.
 *
 * The GSS calls are MIT Kerberos's own (libgssapi_krb5), through the `kerberos` package: an
 * optional dependency, loaded on the first GSSAPI connection, so Keeper without it (or without
 * Kerberos) still runs, and a GSSAPI ensemble says why it cannot authenticate.
 *
 * Credentials come from the keytab: MIT's client keytab (KRB5_CLIENT_KTNAME) gets Keeper a ticket
 * for its principal and renews it on its own; the ticket cache is per process (MEMORY:) unless the
 * operator sets KRB5CCNAME. Both are process-wide, so one Keeper has one Kerberos identity.
 */
import { SaslError } from './digestMd5.js';
import type { SaslMechanism, SaslSettings } from './sasl.js';

type GssapiSettings = Extract<SaslSettings, { mechanism: 'GSSAPI' }>;

interface KerberosClient {
  contextComplete: boolean;
  /** The next token, base64; null (not '') when the context needs nothing more sent. */
  step(challenge: string): Promise<string | null>;
  unwrap(challenge: string): Promise<string>;
  wrap(challenge: string, options?: { user?: string }): Promise<string>;
}
interface KerberosModule {
  initializeClient(service: string, options?: { principal?: string }): Promise<KerberosClient>;
}

let loaded: Promise<KerberosModule> | null = null;

function loadKerberos(): Promise<KerberosModule> {
  loaded ??= import('kerberos').then(
    (m) => ((m as { default?: KerberosModule }).default ?? m) as KerberosModule,
    (error: unknown) => {
      loaded = null;
      throw new SaslError(
        `SASL GSSAPI: the kerberos package is not installed or did not load (${(error as Error).message.split('\n')[0]}); install it with libkrb5-dev present: npm install kerberos`,
      );
    },
  );
  return loaded;
}

/** What the GSS library says, shortened to its first line, in the SASL message's words. */
function gssMessage(step: string, error: unknown): SaslError {
  const text = (error as Error).message.split('\n')[0] ?? String(error);
  return new SaslError(`SASL GSSAPI: ${step}: ${text}`);
}

class GssapiClient implements SaslMechanism {
  readonly mechanism = 'GSSAPI';
  complete = false;
  private phase: 'context' | 'securityLayer' = 'context';

  constructor(
    private readonly client: KerberosClient,
    private readonly settings: GssapiSettings,
    private readonly service: string,
  ) {}

  async start(): Promise<Buffer> {
    try {
      return Buffer.from((await this.client.step('')) ?? '', 'base64');
    } catch (error) {
      throw gssMessage(`no ticket for ${this.service} as ${this.settings.principal} (keytab ${this.settings.keytab})`, error);
    }
  }

  async step(serverToken: Buffer | null): Promise<Buffer | null> {
    const token = (serverToken ?? Buffer.alloc(0)).toString('base64');
    if (this.phase === 'context') {
      let reply: string | null;
      try {
        reply = await this.client.step(token);
      } catch (error) {
        throw gssMessage('the member’s Kerberos answer was refused', error);
      }
      if (this.client.contextComplete) this.phase = 'securityLayer';
      // Established with nothing more to say: an empty token asks for the security layer.
      return Buffer.from(reply ?? '', 'base64');
    }
    if (token === '') throw new SaslError('SASL GSSAPI: the member offered no security layer');
    try {
      const offer = await this.client.unwrap(token);
      const answer = await this.client.wrap(offer, { user: this.settings.principal });
      this.complete = true;
      return Buffer.from(answer, 'base64');
    } catch (error) {
      throw gssMessage('the security layer could not be agreed', error);
    }
  }
}

/** A GSSAPI mechanism for one connection to `host` (the member's principal is serviceName/host). */
export async function gssapiMechanism(settings: GssapiSettings, host: string, env: NodeJS.ProcessEnv = process.env): Promise<SaslMechanism> {
  const kerberos = await loadKerberos();
  env.KRB5_CLIENT_KTNAME = settings.keytab;
  env.KRB5CCNAME ??= 'MEMORY:keeper';
  const service = `${settings.serviceName ?? 'zookeeper'}@${settings.serviceHost ?? host}`;
  try {
    return new GssapiClient(await kerberos.initializeClient(service, { principal: settings.principal }), settings, service);
  } catch (error) {
    throw gssMessage(`cannot start a Kerberos context for ${service} as ${settings.principal}`, error);
  }
}

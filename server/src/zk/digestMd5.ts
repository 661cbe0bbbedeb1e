/**
 * The client side of SASL DIGEST-MD5 (RFC 2831) as ZooKeeper's Java server expects it: the
 * client starts with an empty token, answers the server's challenge with a response computed from
 * the password, and checks the server's `rspauth`, which proves the server knows the password
 * too. Protocol "zookeeper", server name "zk-sasl-md5" (ZooKeeperSaslClient and
 * ZooKeeperSaslServer use those fixed names), qop "auth" only: ZooKeeper asks for no integrity or
 * privacy layer, and TLS is the place for that. Pure apart from the random cnonce.
 */
import { createHash, randomBytes } from 'node:crypto';

export const DIGEST_URI = 'zookeeper/zk-sasl-md5';

export class SaslError extends Error {
  override readonly name = 'SaslError';
}

/** `key="value",key=token,...` as RFC 2831 writes directives; quoted values may hold commas and `\"`. */
export function parseDirectives(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const skip = () => {
    while (i < text.length && /[\s,]/.test(text[i] as string)) i++;
  };
  skip();
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new SaslError(`not a DIGEST-MD5 challenge: ${JSON.stringify(text.slice(0, 60))}`);
    const key = text.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    let value = '';
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      if (text[i] !== '"') throw new SaslError('not a DIGEST-MD5 challenge: unterminated quoted value');
      i++;
    } else {
      const end = text.indexOf(',', i);
      value = (end < 0 ? text.slice(i) : text.slice(i, end)).trim();
      i = end < 0 ? text.length : end;
    }
    if (!key) throw new SaslError('not a DIGEST-MD5 challenge: empty directive name');
    // RFC 2831: realm may repeat (the client picks one); other repeats are malformed, first one kept.
    if (!out.has(key)) out.set(key, value);
    skip();
  }
  return out;
}

const md5 = (...parts: (Buffer | string)[]) => {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
};
const hex = (data: Buffer) => data.toString('hex');

/**
 * RFC 2831 2.1.2.1: with charset=utf-8, a string whose characters all fit ISO 8859-1 is hashed
 * in ISO 8859-1, others in UTF-8 (Java's DigestMD5Base does the same).
 */
function digestBytes(text: string, utf8: boolean): Buffer {
  if (utf8 && [...text].some((c) => (c.codePointAt(0) as number) > 0xff)) return Buffer.from(text, 'utf8');
  return Buffer.from(text, 'latin1');
}

const quote = (value: string) => `"${value.replace(/(["\\])/g, '\\$1')}"`;

export interface DigestMd5Response {
  response: string;
  /** What the server's rspauth must equal. */
  expectedRspauth: string;
}

/** The response directives for a challenge, and the rspauth to expect. cnonce is given by tests (RFC 2831's example). */
export function digestMd5Response(
  challengeText: string,
  credentials: { username: string; password: string },
  cnonce: string = randomBytes(24).toString('base64'),
  digestUri: string = DIGEST_URI,
): DigestMd5Response {
  const challenge = parseDirectives(challengeText);
  const nonce = challenge.get('nonce');
  if (!nonce) throw new SaslError(`not a DIGEST-MD5 challenge (no nonce): ${JSON.stringify(challengeText.slice(0, 80))}`);
  const qops = (challenge.get('qop') ?? 'auth').split(',').map((q) => q.trim());
  if (!qops.includes('auth')) throw new SaslError(`the member offers only qop ${qops.join(', ')}; Keeper does auth (TLS protects the connection)`);
  const algorithm = challenge.get('algorithm');
  if (algorithm !== undefined && algorithm.toLowerCase() !== 'md5-sess') throw new SaslError(`unsupported DIGEST-MD5 algorithm ${algorithm}`);
  const utf8 = (challenge.get('charset') ?? '').toLowerCase() === 'utf-8';
  const realm = challenge.get('realm') ?? '';
  const nc = '00000001';
  const qop = 'auth';
  const secret = md5(digestBytes(credentials.username, utf8), ':', digestBytes(realm, utf8), ':', digestBytes(credentials.password, utf8));
  const a1 = Buffer.concat([secret, Buffer.from(`:${nonce}:${cnonce}`, 'latin1')]);
  const ha1 = hex(md5(a1));
  const kd = (a2: string) => hex(md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${hex(md5(a2))}`));
  const response = kd(`AUTHENTICATE:${digestUri}`);
  const parts = [
    ...(utf8 ? ['charset=utf-8'] : []),
    `username=${quote(credentials.username)}`,
    ...(challenge.has('realm') ? [`realm=${quote(realm)}`] : []),
    `nonce=${quote(nonce)}`,
    `nc=${nc}`,
    `cnonce=${quote(cnonce)}`,
    `digest-uri=${quote(digestUri)}`,
    'maxbuf=65536',
    `response=${response}`,
    `qop=${qop}`,
  ];
  return { response: parts.join(','), expectedRspauth: kd(`:${digestUri}`) };
}

/** One DIGEST-MD5 exchange: empty first token, the response, then the server's rspauth checked. */
export class DigestMd5Client {
  readonly mechanism = 'DIGEST-MD5';
  private expectedRspauth: string | null = null;
  complete = false;

  constructor(private readonly credentials: { username: string; password: string }) {}

  start(): Buffer {
    return Buffer.alloc(0);
  }

  /** The next token to send, or null once the server proved itself (complete). */
  step(serverToken: Buffer | null): Buffer | null {
    const text = serverToken?.toString('utf8') ?? '';
    if (this.expectedRspauth === null) {
      if (text === '') throw new SaslError('the member answered the SASL request with nothing: it has no SASL configured (no JAAS "Server" section)');
      const { response, expectedRspauth } = digestMd5Response(text, this.credentials);
      this.expectedRspauth = expectedRspauth;
      return Buffer.from(response, 'utf8');
    }
    const rspauth = parseDirectives(text).get('rspauth');
    if (rspauth !== this.expectedRspauth) throw new SaslError('the member’s rspauth does not match: it did not prove it knows the password');
    this.complete = true;
    return null;
  }
}

import { describe, expect, it } from 'vitest';
import { DIGEST_URI, DigestMd5Client, SaslError, digestMd5Response, parseDirectives } from '../../../src/zk/digestMd5.js';

// RFC 2831 section 4, the example exchange (IMAP).
const RFC_CHALLENGE = 'realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",algorithm=md5-sess,charset=utf-8';

describe('DIGEST-MD5 (RFC 2831)', () => {
  it('computes the RFC example response and rspauth', () => {
    const { response, expectedRspauth } = digestMd5Response(
      RFC_CHALLENGE,
      { username: 'chris', password: 'secret' },
      'OA6MHXh6VqTrRk',
      'imap/elwood.innosoft.com',
    );
    const directives = parseDirectives(response);
    expect(directives.get('response')).toBe('d388dad90d4bbd760a152321f2143af7');
    expect(expectedRspauth).toBe('ea40f60335c427b5527b84dbabcdfffd');
    expect(directives.get('username')).toBe('chris');
    expect(directives.get('realm')).toBe('elwood.innosoft.com');
    expect(directives.get('nc')).toBe('00000001');
    expect(directives.get('qop')).toBe('auth');
    expect(directives.get('charset')).toBe('utf-8');
  });

  it('reads quoted values with commas and escapes, and unquoted tokens', () => {
    const d = parseDirectives('realm="a,b",nonce="x\\"y",qop=auth, algorithm=md5-sess');
    expect(d.get('realm')).toBe('a,b');
    expect(d.get('nonce')).toBe('x"y');
    expect(d.get('qop')).toBe('auth');
    expect(d.get('algorithm')).toBe('md5-sess');
  });

  it('runs ZooKeeper’s exchange: empty first token, response, rspauth checked', () => {
    const client = new DigestMd5Client({ username: 'keeper', password: 'pw' });
    expect(client.start().length).toBe(0);
    const challenge = 'realm="zk-sasl-md5",nonce="abc",charset=utf-8,algorithm=md5-sess';
    const response = client.step(Buffer.from(challenge))!.toString();
    expect(parseDirectives(response).get('digest-uri')).toBe(DIGEST_URI);
    expect(client.complete).toBe(false);
    const cnonce = parseDirectives(response).get('cnonce')!;
    const { expectedRspauth } = digestMd5Response(challenge, { username: 'keeper', password: 'pw' }, cnonce);
    expect(client.step(Buffer.from(`rspauth=${expectedRspauth}`))).toBeNull();
    expect(client.complete).toBe(true);
  });

  it('refuses a server that does not prove the password, an empty challenge and a non-DIGEST challenge', () => {
    const client = new DigestMd5Client({ username: 'keeper', password: 'pw' });
    client.step(Buffer.from('realm="zk-sasl-md5",nonce="abc"'));
    expect(() => client.step(Buffer.from('rspauth=00000000000000000000000000000000'))).toThrow(/did not prove/);
    expect(() => new DigestMd5Client({ username: 'k', password: 'p' }).step(Buffer.alloc(0))).toThrow(/no SASL configured/);
    expect(() => new DigestMd5Client({ username: 'k', password: 'p' }).step(Buffer.from([0x60, 0x82, 0x01]))).toThrow(SaslError);
  });

  it('hashes characters beyond ISO 8859-1 in UTF-8 and the rest in ISO 8859-1, like Java', () => {
    const latin = digestMd5Response('nonce="n",charset=utf-8', { username: 'jürgen', password: 'pw' }, 'c');
    const latinSame = digestMd5Response('nonce="n"', { username: 'jürgen', password: 'pw' }, 'c');
    expect(parseDirectives(latin.response).get('response')).toBe(parseDirectives(latinSame.response).get('response'));
    const wide = digestMd5Response('nonce="n",charset=utf-8', { username: 'ключ', password: 'pw' }, 'c');
    expect(parseDirectives(wide.response).get('response')).toMatch(/^[0-9a-f]{32}$/);
  });
});

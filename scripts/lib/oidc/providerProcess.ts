/**
 * A real OpenID Connect provider for tests: the npm `oidc-provider` package (its own discovery,
 * authorization with PKCE, login and consent pages, token endpoint, signed ID tokens), in a process
 * of its own, on loopback. Started by scripts/lib/oidc/index.ts; configured by the JSON in
 * KEEPER_OIDC_FIXTURE: the port, the clients, the accounts and their claims (groups among them).
 *
 * It sits behind a small front (as providers sit behind proxies), which the issuer URL names. The
 * front passes everything through, and lets a test stage what real deployments suffer:
 *   POST /__fixture/clock        {"skewMs": -7200000}  the provider's clock is wrong (its ID tokens
 *                                                       arrive expired, or not yet valid);
 *   POST /__fixture/swap-id-token {"idToken": "..."}   an on-path attacker replaces the ID token of
 *                                                       the next token response (with a genuine one
 *                                                       the provider issued to someone else).
 * Nothing of the provider's own checks is changed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata } from 'oidc-provider';

interface FixtureConfig {
  port: number;
  clients: ClientMetadata[];
  accounts: Record<string, Record<string, unknown>>;
}

const config = JSON.parse(process.env.KEEPER_OIDC_FIXTURE ?? '{}') as FixtureConfig;

// The provider's clock, which a test may put wrong (oidc-provider reads time through Date.now).
let skewMs = 0;
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + skewMs;

let swapIdToken: string | null = null;

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

async function main(): Promise<void> {
  const front = http.createServer();
  const port = await listen(front, config.port);
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: config.clients.map((c) => ({ grant_types: ['authorization_code'], response_types: ['code'], ...c })),
    async findAccount(_ctx, id) {
      const claims = config.accounts[id];
      if (!claims) return undefined;
      return { accountId: id, claims: () => ({ sub: id, ...claims }) };
    },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    // Groups in the ID token itself, as Dex and Keycloak put them.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['keeper-oidc-fixture'] },
    features: { devInteractions: { enabled: true } },
  });
  const inner = http.createServer(provider.callback());
  const innerPort = await listen(inner, 0);

  front.on('request', (req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'POST' && url.startsWith('/__fixture/')) {
      let body = '';
      req.on('data', (c: Buffer) => (body += String(c)));
      req.on('end', () => {
        const parsed = JSON.parse(body || '{}') as { skewMs?: number; idToken?: string };
        if (url === '/__fixture/clock') skewMs = parsed.skewMs ?? 0;
        if (url === '/__fixture/swap-id-token') swapIdToken = parsed.idToken ?? null;
        res.writeHead(204).end();
      });
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: innerPort, method: req.method, path: url, headers: req.headers }, (answer) => {
      const swapping = swapIdToken !== null && url.startsWith('/token') && answer.statusCode === 200;
      if (!swapping) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      let text = '';
      answer.on('data', (c: Buffer) => (text += String(c)));
      answer.on('end', () => {
        const tokens = JSON.parse(text) as Record<string, unknown>;
        tokens.id_token = swapIdToken;
        swapIdToken = null;
        const out = JSON.stringify(tokens);
        res.writeHead(200, { ...answer.headers, 'content-length': String(Buffer.byteLength(out)) });
        res.end(out);
      });
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });

  process.stdout.write(`OIDC provider ready ${issuer}\n`);
  const stop = () => {
    front.close();
    inner.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Never outlive the test that started it.
  process.on('disconnect', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});

/**
 * Bad TLS and SASL input against real members, each a clear error while Keeper stays up and
 * serves its other ensembles: a wrong password (said in the session's state, GET
 * /api/ensembles and the log; retried with back-off, healed by fixing the file), an untrusted
 * server certificate, a host-name mismatch, an expired client certificate, a missing key file,
 * plain TCP to a TLS-only port and TLS to a plain port. Also: a client certificate rotated on
 * disk is used by the next connection without a restart.
 *
 * One member is enough for each: first a TLS-only, SASL-required one, then a plain one, on the
 * same ports one after the other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { EnsembleConfig } from '../src/config/types.js';
import { makeCa, makeCert } from '../../scripts/sandbox/index.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { forceExpireSecure } from './support/secureClient.js';
import { waitFor } from './support/waitFor.js';

const USERS = { keeper: 'the-right-one' };

/** Everything Keeper logs, to check what an operator reads there. */
const logLines: string[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
);

async function get(keeper: RunningKeeper, p: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${keeper.url}${p}`);
  return { status: res.status, body: await res.json() };
}

async function sessionOf(keeper: RunningKeeper, name: string): Promise<any> {
  const list = await get(keeper, '/api/ensembles');
  return list.body.ensembles.find((e: { name: string }) => e.name === name).session;
}

async function problemOf(keeper: RunningKeeper, name: string, pattern: RegExp): Promise<any> {
  return waitFor(
    async () => {
      const session = await sessionOf(keeper, name);
      return pattern.test(session.connection?.problem?.message ?? '') ? session : null;
    },
    { what: `${name}: a problem matching ${pattern}`, timeoutMs: 30_000, intervalMs: 200 },
  );
}

describe('a TLS-only, SASL-required member given bad input', () => {
  let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
  let keeper: RunningKeeper;
  let base: EnsembleConfig;
  let dir: string;
  const passwordFile = () => path.join(dir, 'keeper.password');

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.secureBadInputTest, { size: 1, secure: { saslUsers: USERS } });
    base = ensembleConfigOf(ensemble);
    dir = path.join(ensemble.stateDir, 'bad');
    fs.mkdirSync(dir);
    fs.writeFileSync(passwordFile(), 'not-the-password\n');
    const otherCa = makeCa(dir, 'other', 'Some other CA');
    const ours = ensemble.security!.tls.ca;
    const expiredClient = makeCert(ours, dir, { name: 'expired', cn: 'keeper', days: -1 });
    const tls = base.tls!;
    const ensembles: EnsembleConfig[] = [
      { ...base, name: 'good' },
      { ...base, name: 'wrong-password', sasl: { mechanism: 'DIGEST-MD5', username: 'keeper', passwordFile: passwordFile() } },
      { ...base, name: 'untrusted', tls: { ...tls, ca: otherCa.cert } },
      { ...base, name: 'mismatch', tls: { ...tls, servername: 'zk.elsewhere.example' } },
      { ...base, name: 'expired-client', tls: { ...tls, cert: expiredClient.cert, key: expiredClient.key } },
      // No AdminServer port either: its plain HTTP answers for the member (the poller then shows it
      // serving from there), and the point is the four-letter words over TLS, which need the key.
      {
        ...base,
        name: 'missing-key',
        tls: { ...tls, key: path.join(dir, 'no-such.key') },
        members: base.members!.map((m) => ({ host: m.host, clientPort: m.clientPort })),
      },
      // No AdminServer port: its plain HTTP would answer for the member, and the point is the client port.
      { name: 'plain-to-tls', connectionString: base.connectionString },
    ];
    keeper = await startKeeper(
      { host: '127.0.0.1', port: 0, ensembles },
      // Seven ensembles on one member: polled every 2 s, not every second (each poll is two TLS handshakes).
      { logger, gatewayDefaults: { sessionTimeoutMs: 6_000, requestDeadlineMs: 4_000 }, ensembleDefaults: { pollIntervalMs: 2_000, maxBackoffMs: 5_000 } },
    );
    await waitFor(async () => (await sessionOf(keeper, 'good')).state === 'connected', { what: 'the good ensemble connected', timeoutMs: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await keeper?.close();
    await ensemble?.dispose();
  }, 60_000);

  it('says a wrong password in plain words, in the state, the API and the log, and backs off', async () => {
    const session = await problemOf(keeper, 'wrong-password', /^SASL DIGEST-MD5: .* refused user "keeper": wrong password or unknown user/);
    expect(['authFailed', 'connecting']).toContain(session.state);
    expect(session.timeline.some((t: { state: string; note?: string }) => t.state === 'authFailed' && /^SASL DIGEST-MD5/.test(t.note ?? ''))).toBe(true);
    expect(logLines.some((l) => l.includes('SASL DIGEST-MD5') && l.includes('wrong password'))).toBe(true);
    expect(logLines.join('')).not.toContain('not-the-password');
    // Never hot: refusals a few seconds apart (5 s, then doubling), not a loop.
    const gateway = keeper.ensembles.get('wrong-password').gateway;
    const countRefusals = () => gateway.session.timeline.filter((t) => t.state === 'authFailed').length;
    const before = countRefusals();
    await new Promise((r) => setTimeout(r, 12_000));
    expect(countRefusals() - before).toBeLessThanOrEqual(2);
    // Keeper stays up and serves the others.
    expect((await get(keeper, '/api/health')).status).toBe(200);
    expect((await sessionOf(keeper, 'good')).state).toBe('connected');
  }, 60_000);

  it('connects once the password file is fixed, without a restart', async () => {
    fs.writeFileSync(passwordFile(), `${USERS.keeper}\n`);
    const session = await waitFor(
      async () => {
        const s = await sessionOf(keeper, 'wrong-password');
        return s.state === 'connected' && s.connection.identity ? s : null;
      },
      { what: 'connected after the fix', timeoutMs: 70_000, intervalMs: 250 },
    );
    expect(session.connection.problem).toBeNull();
    expect(session.connection.identity).toContainEqual({ scheme: 'sasl', id: 'keeper' });
  }, 90_000);

  it('refuses a member whose certificate no configured CA signed', async () => {
    const session = await problemOf(keeper, 'untrusted', /^TLS: the certificate of 127\.0\.0\.1:\d+ is not signed by a CA in .*other-ca\.pem/);
    expect(session.state).toBe('connecting');
  });

  it('refuses a certificate that does not name the host Keeper expects', async () => {
    const session = await problemOf(keeper, 'mismatch', /^TLS: the certificate of 127\.0\.0\.1:\d+ does not name the host: .*zk\.elsewhere\.example/);
    expect(session.state).toBe('connecting');
  });

  it('says the member refused an expired client certificate', async () => {
    await problemOf(
      keeper,
      'expired-client',
      /^TLS: 127\.0\.0\.1:\d+ refused the handshake \(certificate (expired|unknown)\)|does not accept Keeper’s client certificate|refused Keeper’s certificate/,
    );
  });

  it('names a missing key file, and the poller says the same instead of "down"', async () => {
    await problemOf(keeper, 'missing-key', /^TLS: cannot read the client key file .*no-such\.key: ENOENT$/);
    const members = await waitFor(
      async () => {
        const body = (await get(keeper, '/api/ensembles/missing-key/members')).body;
        if (!body.members?.[0]?.detail?.includes('no-such.key')) throw new Error(JSON.stringify(body.members?.[0]?.detail ?? body));
        return body;
      },
      // A failing member is polled with back-off (up to maxBackoffMs 5 s, plus the 4 s deadline): as long as the TLS-only card's wait.
      { what: 'the member card naming the key file', timeoutMs: 20_000 },
    );
    expect(members.members[0].role).not.toBe('down');
  });

  it('says a member speaks only TLS when Keeper connects with plain TCP, in the session and the member poll', async () => {
    const session = await problemOf(keeper, 'plain-to-tls', /speaks only TLS on this port: .*add "tls"/);
    expect(session.state).toBe('connecting');
    const members = await waitFor(
      async () => {
        const body = (await get(keeper, '/api/ensembles/plain-to-tls/members')).body;
        if (!body.members?.[0]?.detail?.includes('speaks only TLS')) throw new Error(JSON.stringify(body.members));
        return body;
      },
      { what: 'the member card saying TLS only', timeoutMs: 20_000 },
    );
    expect(members.members[0].role).not.toBe('down');
  });

  it('uses a client certificate rotated on disk at the next connection, without a restart', async () => {
    const gateway = keeper.ensembles.get('good').gateway;
    await waitFor(() => gateway.session.connection?.identity?.some((i) => i.scheme === 'x509' && i.id === 'CN=keeper'), {
      what: 'the first certificate in use',
    });
    const rotated = makeCert(ensemble.security!.tls.ca, dir, { name: 'rotated', cn: 'keeper-rotated' });
    // Replace the files in place, as a certificate manager does.
    fs.copyFileSync(rotated.cert, base.tls!.cert!);
    fs.copyFileSync(rotated.key, base.tls!.key!);
    const credentials = gateway.sessionCredentials()!;
    await forceExpireSecure(base, credentials.sessionId, credentials.password);
    await waitFor(() => gateway.session.connection?.identity?.some((i) => i.scheme === 'x509' && i.id === 'CN=keeper-rotated'), {
      what: 'the rotated certificate in use',
      timeoutMs: 30_000,
    });
  }, 60_000);
});

describe('TLS to a plain member', () => {
  let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
  let keeper: RunningKeeper;
  let caDir: string;

  beforeAll(async () => {
    ensemble = await startTestEnsemble(PORT_OFFSETS.secureBadInputTest, { size: 1 });
    caDir = path.join(ensemble.stateDir, 'ca');
    const ca = makeCa(caDir, 'test');
    keeper = await startKeeper(
      { host: '127.0.0.1', port: 0, ensembles: [{ name: 'tls-to-plain', connectionString: ensemble.connectionString, tls: { ca: ca.cert } }] },
      { logger, gatewayDefaults: { sessionTimeoutMs: 6_000 }, ensembleDefaults: { pollIntervalMs: 1_000, maxBackoffMs: 2_000 } },
    );
  }, 120_000);

  afterAll(async () => {
    await keeper?.close();
    await ensemble?.dispose();
  }, 60_000);

  it('says the member does not speak TLS there, in the session and on its card, and stays up', async () => {
    const session = await problemOf(
      keeper,
      'tls-to-plain',
      /^TLS: 127\.0\.0\.1:\d+ (closed the connection during the TLS handshake|does not speak TLS on this port)/,
    );
    expect(session.state).toBe('connecting');
    const members = await waitFor(
      async () => {
        const body = (await get(keeper, '/api/ensembles/tls-to-plain/members')).body;
        return /TLS/.test(body.members?.[0]?.detail ?? '') ? body : null;
      },
      { what: 'the member card naming TLS', timeoutMs: 20_000 },
    );
    expect(members.members[0].role).not.toBe('down');
    expect((await get(keeper, '/api/health')).status).toBe(200);
  });
});

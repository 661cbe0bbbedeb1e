/**
 * `replicas.identities` on a real secured home ensemble (TLS with client certificates, SASL
 * DIGEST-MD5 required of every session; docs/operating/replicas.md "Identity and ACL"): the root and every
 * znode under it carry the secret's digest entry and one cdrwa entry per identity; each identity
 * lets its holder in on its own; a client with another certificate and another SASL user is
 * refused (NO_AUTH); Keeper's console session, which carries the very identities the ACL names,
 * is still kept out of the root; an identities change is refused while a replica with the old
 * list runs, then applied to every znode by the first replica with the new list, nothing lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicasAnswerSchema } from '@keeper/shared';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { EnsembleConfig } from '../src/config/types.js';
import { replicaAcl } from '../src/replicas/replicaAcl.js';
import { Replicas } from '../src/replicas/replicas.js';
import type { AclEntry } from '../src/zk/mutations.js';
import { makeCert, type CertFiles } from '../../scripts/sandbox/certificates.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectSecure } from './support/secureClient.js';
import type { RawClient } from './support/rawClient.js';
import { call, cookieFrom, type Who } from './support/http.js';
import { testLogger } from './support/logger.js';
import { waitFor } from './support/waitFor.js';

const USERS = { keeper: 'keeper-secret-1', billing: 'billing-secret-2' };
const PASSWORD_ENV = { keeper: 'KEEPER_TEST_IDENTITIES_KEEPER', billing: 'KEEPER_TEST_IDENTITIES_BILLING' } as const;
const SECRET = 'identities-cluster-secret-0123456789-abcdef';
const ROOT = '/keeper/replicas';
const ADMIN = 'identities-admin-token-0123456789';
const admin: Who = { token: ADMIN };
/** Keeper's certificate is CN=keeper and its SASL user keeper (the sandbox's). */
const FIRST = ['x509:CN=keeper', 'sasl:keeper'];
/** A certificate made /CN=keeper/OU=ops, which ZooKeeper names OU=ops,CN=keeper (RFC 2253, a comma inside the DN). */
const NEXT = ['x509:OU=ops,CN=keeper'];

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let home: EnsembleConfig;
let keeper: RunningKeeper | null = null;
let certDir: string;
const stateDirs: string[] = [];
const clients: RawClient[] = [];
let keeperCert: CertFiles;
let intruderCert: CertFiles;
let opsCert: CertFiles;

function startReplica(identities: string[]): Promise<RunningKeeper> {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-identities-it-'));
  stateDirs.push(stateDir);
  return startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [home],
      auth: { stateDir, adminToken: ADMIN },
      replicas: { stateEnsemble: 'home', root: ROOT, secret: SECRET, sharedPolling: false, identities },
    },
    { logger: testLogger, gatewayDefaults: { sessionTimeoutMs: 6_000, requestDeadlineMs: 5_000 } },
  );
}

/** Another client of the home ensemble presenting `cert` and signing in to SASL as `user`, with no digest. */
async function clientAs(cert: CertFiles, user: keyof typeof USERS): Promise<RawClient> {
  const client = await connectSecure({
    connectionString: home.connectionString,
    tls: { ca: home.tls!.ca, cert: cert.cert, key: cert.key },
    sasl: { mechanism: 'DIGEST-MD5', username: user, passwordEnv: PASSWORD_ENV[user] },
  });
  clients.push(client);
  return client;
}

function rawCall<T>(run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error as Error) : resolve(value as T))));
}

// The library stores `permission`; its type definitions call it `perms` (as zk/mutations.ts notes).
const aclOf = (client: RawClient, path: string) =>
  rawCall<zookeeper.ACL[]>((cb) => client.client.getACL(path, (e, acl) => cb(e, acl))).then((acl) =>
    acl.map((a) => `${a.id.scheme}:${a.id.id}:${(a as unknown as { permission: number }).permission}`).sort(),
  );
const childrenOf = (client: RawClient, path: string) => rawCall<string[]>((cb) => client.client.getChildren(path, (e, c) => cb(e, c)));
const expected = (acl: AclEntry[]) => acl.map((a) => `${a.scheme}:${a.id}:${a.permissions}`).sort();

/** The root and every znode under it, read by `client`, with each one's ACL. */
async function everyAcl(client: RawClient): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const pending = [ROOT];
  while (pending.length > 0) {
    const path = pending.pop()!;
    const acl = await aclOf(client, path).catch((e: { code?: number }) => (e.code === zookeeper.Exception.NO_NODE ? null : Promise.reject(e)));
    if (acl === null) continue; // an ephemeral gone meanwhile
    found.set(path, acl);
    for (const child of await childrenOf(client, path).catch(() => [])) pending.push(`${path}/${child}`);
  }
  return found;
}

async function registered(k: RunningKeeper): Promise<void> {
  await waitFor(
    async () => {
      const res = await call(k.url, 'GET', '/api/replicas', admin);
      return res.status === 200 && replicasAnswerSchema.parse(res.body).replicas.some((r) => r.self);
    },
    { what: 'the replica registered in the secured home ensemble', timeoutMs: 30_000 },
  );
}

beforeAll(async () => {
  process.env[PASSWORD_ENV.keeper] = USERS.keeper;
  process.env[PASSWORD_ENV.billing] = USERS.billing;
  ensemble = await startTestEnsemble(PORT_OFFSETS.replicaIdentitiesTest, { size: 1, secure: { saslUsers: USERS } });
  home = ensembleConfigOf(ensemble, { name: 'home' });
  keeperCert = { cert: home.tls!.cert!, key: home.tls!.key! };
  certDir = mkdtempSync(join(tmpdir(), 'keeper-identities-certs-'));
  intruderCert = makeCert(ensemble.security!.tls.ca, certDir, { name: 'intruder', cn: 'intruder' });
  opsCert = makeCert(ensemble.security!.tls.ca, certDir, { name: 'ops', cn: 'keeper', subjectTail: '/OU=ops' });
  keeper = await startReplica(FIRST);
  await registered(keeper);
}, 180_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await keeper?.close();
  await ensemble?.dispose();
  for (const dir of [...stateDirs, certDir]) if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

let cookie = '';

describe('replicas.identities on a TLS + SASL home ensemble', () => {
  it('gives the root and every znode under it the digest entry and one cdrwa entry per identity, and Keeper works', async () => {
    // Keeper works: a sign-in is a record under the root, and the cookie is honoured.
    const login = await call(keeper!.url, 'POST', '/api/login', {}, { token: ADMIN });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    cookie = cookieFrom(login);
    expect((await call(keeper!.url, 'GET', '/api/me', { cookie })).status).toBe(200);

    const reader = await clientAs(keeperCert, 'keeper');
    const want = expected(replicaAcl(SECRET, FIRST));
    expect(want).toEqual(expect.arrayContaining(['x509:CN=keeper:31', 'sasl:keeper:31']));
    expect(want.filter((e) => e.startsWith('digest:keeper:'))).toHaveLength(1);
    const acls = await everyAcl(reader);
    // The registration, the sessions' buckets and the sign-in record at least.
    expect([...acls.keys()]).toEqual(expect.arrayContaining([ROOT, `${ROOT}/replicas/${keeper!.replicas!.id}`, `${ROOT}/sessions`]));
    expect([...acls.keys()].some((p) => p.split('/').length === 6 && p.startsWith(`${ROOT}/sessions/`))).toBe(true);
    for (const [path, acl] of acls) expect(acl, path).toEqual(want);
  });

  it('lets in each identity on its own, and refuses a client with another certificate and another SASL user (NO_AUTH)', async () => {
    // CN=keeper's certificate with SASL as billing: the x509 entry alone lets it in.
    const byCertificate = await clientAs(keeperCert, 'billing');
    expect(await byCertificate.get(ROOT)).toContain('layout');
    // Another certificate with SASL as keeper: the sasl entry alone.
    const bySasl = await clientAs(intruderCert, 'keeper');
    expect(await bySasl.get(ROOT)).toContain('layout');
    // Neither: refused a read of the root and of the sessions under it.
    const intruder = await clientAs(intruderCert, 'billing');
    await expect(intruder.get(ROOT)).rejects.toMatchObject({ name: 'NO_AUTH' });
    await expect(childrenOf(intruder, `${ROOT}/sessions`)).rejects.toMatchObject({ code: zookeeper.Exception.NO_AUTH });
    await expect(intruder.create(`${ROOT}/sessions/forged`, '{}')).rejects.toMatchObject({ name: 'NO_AUTH' });
  });

  it("keeps Keeper's console session out of the root although it carries the identities the ACL names", async () => {
    const gateway = keeper!.ensembles.get('home').gateway;
    await waitFor(() => (gateway.session.connection?.identity ?? []).some((i) => i.scheme === 'sasl' && i.id === 'keeper'), {
      what: "the console session's identity",
    });
    expect(gateway.session.connection?.identity).toEqual(expect.arrayContaining([{ scheme: 'x509', id: 'CN=keeper' }]));
    for (const path of ['keeper/replicas', 'keeper/replicas/sessions']) {
      const browse = await call(keeper!.url, 'GET', `/api/ensembles/home/znodes/${path}`, admin);
      expect(browse.status, path).toBe(403);
      expect(browse.body.error.code).toBe('NO_AUTH');
    }
    // Its parent stays open to every Keeper.
    expect((await call(keeper!.url, 'GET', '/api/ensembles/home/znodes/keeper', admin)).status).toBe(200);
  });

  it('refuses an identities change while a replica with the old list runs, naming both ACLs; the first replica with the new list then sets it on every znode, nothing lost', async () => {
    const next = new Replicas({ stateEnsemble: 'home', root: ROOT, secret: SECRET, sharedPolling: false, identities: NEXT }, home, testLogger);
    next.gateway.start();
    try {
      await expect(next.store.ensureRoot()).rejects.toThrow(
        new RegExp(
          `^replicas: ${ROOT} has the ACL digest:keeper:<from the cluster secret>:cdrwa, x509:CN=keeper:cdrwa, sasl:keeper:cdrwa, ` +
            "and this replica's replicas.identities make it digest:keeper:<from the cluster secret>:cdrwa, x509:OU=ops,CN=keeper:cdrwa; " +
            `1 replica\\(s\\) registered with the old list still run \\([^)]+:\\d+\\): stop every replica`,
        ),
      );
      const reader = await clientAs(keeperCert, 'keeper');
      expect(await aclOf(reader, ROOT)).toEqual(expected(replicaAcl(SECRET, FIRST)));

      // The old-list replica stops (a clean close deletes its registration at once).
      await keeper!.close();
      keeper = null;
      await waitFor(async () => (await childrenOf(reader, `${ROOT}/replicas`)).length === 0, { what: 'no replica registered' });
      await next.store.ensureRoot();

      // Every znode now names the new identity; the old ones are out.
      const ops = await clientAs(opsCert, 'billing');
      const acls = await everyAcl(ops);
      expect(acls.size).toBeGreaterThanOrEqual(4);
      for (const [path, acl] of acls) expect(acl, path).toEqual(expected(replicaAcl(SECRET, NEXT)));
      await expect(reader.get(ROOT)).rejects.toMatchObject({ name: 'NO_AUTH' });
      await expect((await clientAs(keeperCert, 'billing')).get(ROOT)).rejects.toMatchObject({ name: 'NO_AUTH' });
    } finally {
      next.close();
    }

    // A replica with the new list serves the browser signed in before the change.
    keeper = await startReplica(NEXT);
    await registered(keeper);
    const me = await call(keeper.url, 'GET', '/api/me', { cookie });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
  }, 90_000);
});

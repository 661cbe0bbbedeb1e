/**
 * SASL GSSAPI (Kerberos) against a real MIT KDC (Debian's krb5-kdc) that this file starts on
 * loopback, and a TLS-only member whose JAAS "Server" section logs in as
 * zookeeper/localhost@KEEPER.TEST from a keytab, with SASL required of every session. Keeper
 * authenticates as keeper@KEEPER.TEST from its own keytab; ZooKeeper's whoAmI names that
 * principal, a znode only it may read is read through Keeper, and the ACL lock-out check counts
 * it. A wrong service host is said plainly (the KDC's own words), while the other ensemble stays
 * connected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKdc, type SandboxKdc } from '../../scripts/sandbox/kdc.js';
import { KDC_PORTS } from '../../scripts/sandbox/portOffsets.js';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { ZkGateway } from '../src/zk/gateway.js';
import { ZkMutations } from '../src/zk/mutations.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

const PRINCIPAL = 'keeper@KEEPER.TEST';

let dir: string;
let kdc: SandboxKdc;
let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let gateway: ZkGateway;

const identities = (g: ZkGateway) => g.session.connection?.identity?.map((i) => `${i.scheme}:${i.id}`) ?? [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'keeper-krb-'));
  kdc = await startKdc(join(dir, 'kdc'), KDC_PORTS.kerberosTest);
  const memberKeytab = kdc.keytab('zookeeper/localhost');
  const keeperKeytab = kdc.keytab('keeper');
  // Keeper's GSS library reads the realm's KDC from here (the machine's /etc/krb5.conf is not the test's).
  process.env.KRB5_CONFIG = kdc.krb5Conf;
  ensemble = await startTestEnsemble(PORT_OFFSETS.kerberosTest, {
    size: 1,
    secure: { kerberos: { krb5Conf: kdc.krb5Conf, keytab: memberKeytab, principal: `zookeeper/localhost@${kdc.realm}` } },
  });
  const sasl = { mechanism: 'GSSAPI' as const, principal: PRINCIPAL, keytab: keeperKeytab, serviceHost: 'localhost' };
  keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [
        ensembleConfigOf(ensemble, { name: 'krb', sasl }),
        ensembleConfigOf(ensemble, { name: 'wronghost', sasl: { ...sasl, serviceHost: 'zk.elsewhere' } }),
      ],
    },
    {
      logger: testLogger,
      gatewayDefaults: { sessionTimeoutMs: 10_000, requestDeadlineMs: 5_000 },
      ensembleDefaults: { pollIntervalMs: 1_000, maxBackoffMs: 2_000 },
    },
  );
  gateway = keeper.ensembles.get('krb').gateway;
}, 180_000);

afterAll(async () => {
  await keeper?.close();
  await ensemble?.dispose();
  await kdc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('SASL GSSAPI with a real KDC', () => {
  it('authenticates from a keytab; ZooKeeper sees the principal, and a znode only it may read is read', async () => {
    await waitFor(() => gateway.session.state === 'connected' && identities(gateway).length > 0, { what: 'connected with an identity', timeoutMs: 30_000 });
    expect(identities(gateway)).toContain(`sasl:${PRINCIPAL}`);
    const res = await fetch(`${keeper.url}/api/ensembles`);
    const listed = (await res.json()) as { ensembles: { name: string; session: { connection: { identity: { scheme: string; id: string }[] } } }[] };
    expect(listed.ensembles.find((e) => e.name === 'krb')!.session.connection.identity).toContainEqual({ scheme: 'sasl', id: PRINCIPAL });

    const mutations = new ZkMutations(gateway);
    await mutations.create('/krb-only', Buffer.from('for keeper alone'), 0, [{ permissions: 31, scheme: 'sasl', id: PRINCIPAL }]);
    const node = await fetch(`${keeper.url}/api/ensembles/krb/znodes/krb-only`);
    expect(node.status).toBe(200);
    expect(((await node.json()) as { data: { value: string } }).data.value).toBe('for keeper alone');
  });

  it('counts the sasl identity in the lock-out check: its own principal keeps the console in, another locks it out', async () => {
    await new ZkMutations(gateway).create('/krb-acl', Buffer.from(''), 0);
    const put = async (id: string, version: number) => {
      const res = await fetch(`${keeper.url}/api/ensembles/krb/acl/krb-acl`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ acl: [{ scheme: 'sasl', id, perms: 'cdrwa' }], version }),
      });
      return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
    };
    expect((await put(PRINCIPAL, 0)).status).toBe(200);
    const other = await put('billing@KEEPER.TEST', 1);
    expect(other.status).toBe(409);
    expect(other.body.error?.code).toBe('ACL_LOCKS_OUT');
    expect(other.body.error?.message).toContain(`sasl:${PRINCIPAL}`);
  });

  it('says a wrong service host plainly, in the KDC’s words, and leaves the other ensemble connected', async () => {
    const wrong = keeper.ensembles.get('wronghost').gateway;
    await waitFor(() => wrong.session.connection?.problem !== null && wrong.session.connection?.problem !== undefined, {
      what: 'the SASL problem said',
      timeoutMs: 30_000,
    });
    const message = wrong.session.connection!.problem!.message;
    expect(message).toMatch(/^SASL GSSAPI/);
    expect(message).toMatch(/zookeeper@zk\.elsewhere/);
    expect(message).toMatch(/not found in Kerberos database/i);
    expect(wrong.session.state).not.toBe('connected');
    expect(gateway.session.state).toBe('connected');
  });
});

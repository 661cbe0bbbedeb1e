/**
 * Read-only members during a quorum loss, on a TLS-only, SASL-required ensemble started with
 * readonlymode.enabled (and local sessions, which ZooKeeper 3.7+ needs for it). Two members of
 * three frozen: the console's member loses quorum; Keeper opens a read-only session there and
 * says so ("read-only: member N has lost quorum; data as of its last sync"), the tree can still
 * be browsed, writes are refused with that reason; when that member's connection drops, the
 * read-only session is said to have ended with it, and Keeper gets a new one there when it serves
 * again; when the others come back, Keeper moves to a member serving with quorum by itself and
 * writes work again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeeper, type RunningKeeper } from '../src/app.js';
import type { ZkGateway } from '../src/zk/gateway.js';
import { ensembleConfigOf, PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let keeper: RunningKeeper;
let gateway: ZkGateway;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${keeper.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

function memberId(member: string | null): number {
  const port = Number(member?.split(':')[1]);
  const found = ensemble.members.find((m) => m.clientPort === port);
  if (!found) throw new Error(`console is not on a sandbox member (${member})`);
  return found.id;
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.readOnlyTest, { secure: { saslUsers: { keeper: 'keeper-ro-pw' } }, readOnlyMode: true });
  keeper = await startKeeper(
    { host: '127.0.0.1', port: 0, ensembles: [ensembleConfigOf(ensemble)] },
    {
      logger: testLogger,
      gatewayDefaults: { sessionTimeoutMs: 20_000, requestDeadlineMs: 5_000 },
      ensembleDefaults: { pollIntervalMs: 2_000, maxBackoffMs: 3_000 },
    },
  );
  gateway = keeper.ensembles.get('it').gateway;
  await waitFor(() => gateway.session.state === 'connected', { what: 'console connected', timeoutMs: 60_000 });
  expect((await call('POST', '/api/ensembles/it/znodes/ro', { data: 'before the outage' })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await keeper?.close();
  await ensemble?.dispose();
}, 60_000);

describe('a quorum loss with read-only members', () => {
  it('browses read-only, refuses writes with the reason, and moves back to read-write by itself', async () => {
    const mine = memberId(gateway.session.member);
    const others = ensemble.members.filter((m) => m.id !== mine).map((m) => m.id);
    const frozenAt = Date.now();
    for (const id of others) ensemble.pauseMember(id);
    try {
      // Before read-only: disconnected, never live.
      await waitFor(() => gateway.session.state !== 'connected', { what: 'the loss noticed', timeoutMs: 20_000 });
      // Asked of the API, what a browser sees. A read-only member may drop a connection once (seen 1 CI run in many:
      // read-only, then 'disconnected' within milliseconds); the session's story is printed then, and Keeper must be read-only again.
      const session = await waitFor(
        async () => {
          const answer = (await call('GET', '/api/ensembles')).body.ensembles[0].session;
          return answer.state === 'readOnly' && answer;
        },
        { what: 'the API saying read-only', timeoutMs: 40_000, intervalMs: 100 },
      );
      const readOnlyAfterMs = Date.now() - frozenAt;
      const flaps = session.timeline.filter((t: { state: string; at: number }) => t.at > frozenAt && t.state === 'readOnly').length;
      if (flaps > 1)
        console.log(`read-only ${flaps} times during the outage:`, JSON.stringify(session.timeline.filter((t: { at: number }) => t.at > frozenAt)));
      expect(session.connection.readOnly).toMatchObject({ memberId: mine });
      expect(session.connection.readOnly.lastReadWriteAt).toBeGreaterThan(frozenAt - 10_000);
      expect(session.connection.readOnly.lastReadWriteAt).toBeLessThanOrEqual(frozenAt + 5_000);
      expect(session.timeline.some((t: { note?: string }) => /no member serves with quorum/.test(t.note ?? ''))).toBe(true);
      // Browse during the outage.
      const node = await call('GET', '/api/ensembles/it/znodes/ro');
      expect(node.status).toBe(200);
      expect(node.body.data.value).toBe('before the outage');
      // Writes say why not.
      const write = await call('PUT', '/api/ensembles/it/znodes/ro', { data: 'during', version: node.body.stat.version });
      expect(write.status).toBe(503);
      expect(write.body.error.message).toBe(`read-only: member ${mine} has lost quorum; data as of its last sync: writes wait for a member with quorum`);
      console.log(`read-only ${(readOnlyAfterMs / 1000).toFixed(1)} s after two members froze`);

      // A read-only session is local to its member: when its connection drops (here the member is
      // killed; ZooKeeper drops it too each time the member's election tries again), Keeper says the
      // session ended, never that it may still be saved, and keeps what read-only meant for the
      // page (issue 34 item 2). Read from the timeline, which keeps the moment whatever came after.
      const killedAt = Date.now();
      await ensemble.killMember(mine);
      const ended = await waitFor(
        async () => {
          const answer = (await call('GET', '/api/ensembles')).body.ensembles[0].session;
          const entry = answer.timeline.find((t: { state: string; at: number }) => t.at >= killedAt && t.state === 'disconnected');
          return entry && { answer, entry };
        },
        { what: 'the read-only connection dropped', timeoutMs: 20_000, intervalMs: 100 },
      );
      expect(ended.entry.note).toMatch(
        new RegExp(`: the read-only session was local to member ${mine} \\(.*\\) and ends with its connection; reads come back with a new read-only session$`),
      );
      expect(ended.answer.connection.readOnly).toMatchObject({ memberId: mine });
      // Back: the member serves read-only again (the others still frozen), and Keeper with a new session there.
      await ensemble.startMember(mine, { waitServing: false });
      const again = await waitFor(
        async () => {
          const answer = (await call('GET', '/api/ensembles')).body.ensembles[0].session;
          return answer.state === 'readOnly' && answer;
        },
        { what: 'read-only again on the restarted member', timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(again.connection.readOnly).toMatchObject({ memberId: mine });
      expect(again.sessionId).not.toBe(session.sessionId);
    } finally {
      for (const id of others) ensemble.resumeMember(id);
    }
    const thawedAt = Date.now();
    await waitFor(() => gateway.session.state === 'connected', { what: 'read-write again', timeoutMs: 40_000, intervalMs: 100 });
    console.log(`read-write ${((Date.now() - thawedAt) / 1000).toFixed(1)} s after the thaw`);
    const node = await call('GET', '/api/ensembles/it/znodes/ro');
    const write = await call('PUT', '/api/ensembles/it/znodes/ro', { data: 'after', version: node.body.stat.version });
    expect(write.status).toBe(200);
    expect(gateway.session.connection?.readOnly).toBeNull();
  }, 150_000);
});

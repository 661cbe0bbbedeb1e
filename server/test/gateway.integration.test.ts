/**
 * The gateway against a real 3-member ensemble, through the faults the ZooKeeper FAQ
 * describes: leader loss, the whole ensemble restarted within the session timeout,
 * a forced expiry, and a hung member (SIGSTOP).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZkGateway } from '../src/zk/gateway.js';
import { ZkMutations } from '../src/zk/mutations.js';
import { PORT_OFFSETS, startTestEnsemble } from './support/testEnsemble.js';
import { connectRaw, forceExpire, type RawClient } from './support/rawClient.js';
import { RecordingListener } from './support/recordingListener.js';
import { waitFor } from './support/waitFor.js';
import { testLogger } from './support/logger.js';

const SESSION_TIMEOUT_MS = 6_000;

let ensemble: Awaited<ReturnType<typeof startTestEnsemble>>;
let gateway: ZkGateway;
let other: RawClient;

function memberId(member: string | null): number {
  const port = Number(member?.split(':')[1]);
  const found = ensemble.members.find((m) => m.clientPort === port);
  if (!found) throw new Error(`console is not on a sandbox member (${member})`);
  return found.id;
}

beforeAll(async () => {
  ensemble = await startTestEnsemble(PORT_OFFSETS.gatewayTest);
  gateway = new ZkGateway({
    name: 'it',
    connectionString: ensemble.connectionString,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    requestDeadlineMs: 5_000,
    logger: testLogger,
  });
  gateway.start();
  other = await connectRaw(ensemble.connectionString);
  await other.mkdirp('/it');
  await waitFor(() => gateway.session.state === 'connected', { what: 'console session connected' });
}, 90_000);

afterAll(async () => {
  gateway?.close();
  other?.close();
  await ensemble?.dispose();
}, 60_000);

describe('reads and live watches', () => {
  it('reads data and stat, and refuses an invalid path without asking ZooKeeper', async () => {
    await other.create('/it/read', 'hello');
    const { data, stat } = await gateway.getData('/it/read');
    expect(data.toString()).toBe('hello');
    expect(stat.version).toBe(0);
    expect(stat.ephemeralOwner).toBe('0x0');
    await expect(gateway.getData('/it//bad')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(gateway.getData('/it/missing')).rejects.toMatchObject({ code: 'NO_NODE' });
  });

  it('streams another client’s create, change, children and delete to every subscriber from one watch', async () => {
    const first = new RecordingListener();
    const second = new RecordingListener();
    const stopFirst = gateway.watches.watch('/it/live', first);
    await waitFor(() => first.node?.exists === false, { what: 'absent node reported' });
    const readsBefore = gateway.watches.reads;
    const stopSecond = gateway.watches.watch('/it/live', second);
    expect(second.node).toEqual({ exists: false });
    expect(gateway.watches.reads).toBe(readsBefore); // the second subscriber cost ZooKeeper nothing

    await other.create('/it/live', 'v1');
    await waitFor(() => first.text === 'v1' && second.text === 'v1', { what: 'creation seen', timeoutMs: 1_000 });
    await other.set('/it/live', 'v2');
    await waitFor(() => first.text === 'v2', { what: 'change seen', timeoutMs: 1_000 });
    await other.create('/it/live/child-a');
    await waitFor(() => first.children?.includes('child-a'), { what: 'child seen', timeoutMs: 1_000 });
    await other.remove('/it/live/child-a');
    await other.remove('/it/live');
    await waitFor(() => first.node?.exists === false && second.node?.exists === false, { what: 'deletion seen', timeoutMs: 1_000 });
    expect(first.events).toEqual(expect.arrayContaining(['created', 'dataChanged', 'childrenChanged', 'deleted']));

    // Re-created later: still watched, so it comes back.
    await other.create('/it/live', 'again');
    await waitFor(() => second.text === 'again', { what: 're-creation seen', timeoutMs: 1_000 });
    stopFirst();
    stopSecond();
    expect(gateway.watches.watchedPaths).toBe(0);
  });
});

describe('faults', () => {
  // The raw test client has none of the gateway's fault handling: a member paused or killed
  // by the previous test may have left it stuck, so every test gets a fresh one.
  beforeEach(async () => {
    other.close();
    other = await connectRaw(ensemble.connectionString);
  });

  it('survives the leader being killed: same session, watches still fire', async () => {
    const listener = new RecordingListener();
    await other.create('/it/leader', 'before');
    const stop = gateway.watches.watch('/it/leader', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    const sessionId = gateway.session.sessionId;
    const leader = await ensemble.leaderId();
    expect(leader).not.toBeNull();
    await ensemble.killMember(leader as number);
    await waitFor(async () => (await ensemble.leaderId()) !== null, { what: 'new leader', timeoutMs: 20_000 });
    await other.set('/it/leader', 'after');
    await waitFor(() => listener.text === 'after', { what: 'change after leader loss', timeoutMs: 15_000 });
    expect(gateway.session.sessionId).toBe(sessionId);
    await ensemble.startMember(leader as number);
    stop();
  }, 60_000);

  it('keeps its session when the whole ensemble is stopped and restarted within the session timeout', async () => {
    const listener = new RecordingListener();
    await other.create('/it/restart', 'before');
    const stop = gateway.watches.watch('/it/restart', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    const sessionId = gateway.session.sessionId;
    await ensemble.stopAll();
    await waitFor(() => gateway.session.state === 'disconnected', { what: 'disconnected seen' });
    await ensemble.startAll();
    await waitFor(() => gateway.session.state === 'connected', { what: 'reconnected', timeoutMs: 30_000 });
    expect(gateway.session.sessionId).toBe(sessionId); // the FAQ: the session survives
    const writer = await connectRaw(ensemble.connectionString);
    await writer.set('/it/restart', 'after');
    writer.close();
    await waitFor(() => listener.text === 'after', { what: 'change after restart', timeoutMs: 10_000 });
    const states = gateway.session.timeline.map((t) => t.state);
    expect(states).toContain('disconnected');
    stop();
  }, 90_000);

  it('opens a new session after a forced expiry, re-arms watches and records it', async () => {
    const listener = new RecordingListener();
    await other.create('/it/expiry', 'before');
    const stop = gateway.watches.watch('/it/expiry', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    const credentials = gateway.sessionCredentials();
    expect(credentials).not.toBeNull();
    const oldSession = gateway.session.sessionId;
    const opened = gateway.session.sessionsOpened;
    await forceExpire(ensemble.connectionString, credentials!.sessionId, credentials!.password);
    await waitFor(() => gateway.session.state === 'connected' && gateway.session.sessionId !== oldSession, {
      what: 'new session',
      timeoutMs: 15_000,
    });
    expect(gateway.session.sessionsOpened).toBe(opened + 1);
    expect(gateway.session.timeline.map((t) => t.state)).toContain('expired');
    await other.set('/it/expiry', 'after');
    await waitFor(() => listener.text === 'after', { what: 'change seen on the new session', timeoutMs: 5_000 });
    stop();
  }, 60_000);

  it('moves off a hung member (SIGSTOP) within the session timeout, keeping the session', async () => {
    const listener = new RecordingListener();
    await other.create('/it/stall', 'before');
    const stop = gateway.watches.watch('/it/stall', listener);
    await waitFor(() => listener.text === 'before', { what: 'initial read' });
    const sessionId = gateway.session.sessionId;
    const hung = memberId(gateway.session.member);
    const pausedAt = Date.now();
    ensemble.pauseMember(hung);
    try {
      await waitFor(() => gateway.session.state === 'connected' && memberId(gateway.session.member) !== hung, {
        what: 'console on another member',
        timeoutMs: SESSION_TIMEOUT_MS,
      });
      expect(Date.now() - pausedAt).toBeLessThan(SESSION_TIMEOUT_MS);
      expect(gateway.session.sessionId).toBe(sessionId);
      // Write through a member that is not hung, then the console sees it.
      const healthy = ensemble.members
        .filter((m) => m.id !== hung)
        .map((m) => `${m.host}:${m.clientPort}`)
        .join(',');
      const writer = await connectRaw(healthy);
      await writer.set('/it/stall', 'after');
      writer.close();
      await waitFor(() => listener.text === 'after', { what: 'change after moving', timeoutMs: 5_000 });
    } finally {
      ensemble.resumeMember(hung);
      stop();
    }
  }, 60_000);

  it('checks the outcome of a write whose reply was lost to a hung member, and applies it exactly once', async () => {
    const mutations = new ZkMutations(gateway);
    await other.create('/it/lost-reply', 'v0');
    // Another session's write reaches the console's member a moment later (no sync in the client).
    const before = await waitFor(() => gateway.getData('/it/lost-reply'), { what: 'node visible to the console' });
    const hung = memberId(gateway.session.member);
    ensemble.pauseMember(hung);
    try {
      const outcome = await mutations.setData('/it/lost-reply', Buffer.from('v1'), before.stat.version);
      expect(outcome.confirmedDirectly).toBe(false);
      expect(outcome.note).toMatch(/reply lost/);
      expect(outcome.value.version).toBe(before.stat.version + 1);
    } finally {
      ensemble.resumeMember(hung);
    }
    // An independent client agrees: applied once, not twice.
    const check = await connectRaw(ensemble.connectionString);
    expect(await check.get('/it/lost-reply')).toBe('v1');
    const after = await gateway.getData('/it/lost-reply');
    expect(after.stat.version).toBe(before.stat.version + 1);
    check.close();
  }, 60_000);

  it('refuses a stale version without changing anything', async () => {
    const mutations = new ZkMutations(gateway);
    await other.create('/it/stale', 'kept');
    await other.set('/it/stale', 'kept-2');
    await waitFor(async () => (await gateway.getData('/it/stale')).stat.version === 1, { what: 'write visible to the console' });
    await expect(mutations.setData('/it/stale', Buffer.from('lost'), 0)).rejects.toMatchObject({ code: 'BAD_VERSION' });
    await expect(mutations.remove('/it/stale', 0)).rejects.toMatchObject({ code: 'BAD_VERSION' });
    expect(await other.get('/it/stale')).toBe('kept-2');
  });
});

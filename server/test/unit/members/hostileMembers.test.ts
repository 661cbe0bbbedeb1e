/**
 * What a "member" can do to the poller on the wire, with real sockets: refuse, accept and
 * say nothing, drip bytes forever, answer garbage or nothing, reset, flood. Each must end
 * as a value within the deadline (never a throw, never a hang), and the state must say
 * down (refused) or unreachable (everything else). No ZooKeeper behaviour is imitated here.
 */
import net from 'node:net';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyProbe, consFromConnections, parseCons } from '@keeper/shared';
import { askMember } from '../../../src/members/memberAsk.js';
import { adminCommand, fourLetterWord, MAX_ANSWER_BYTES } from '../../../src/members/wire.js';
import { probeMember } from '../../../src/members/memberProbe.js';
import { MemberTransport } from '../../../src/members/transport.js';
import { RequestCounters } from '../../../src/members/counters.js';
import { readFileSync } from 'node:fs';
import { onVirtualClock, STEP_MS } from '../support/virtualClock.js';

/** A real AdminServer answer captured from the sandbox (shared's fixtures). */
const fixture = (name: string) => readFileSync(new URL(`../../../../shared/test/ensemble/fixtures/${name}`, import.meta.url), 'utf8');

const DEADLINE = 400;
const servers: (net.Server | http.Server)[] = [];
const sockets = new Set<net.Socket>();

afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function tcp(onConnection: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

async function httpServer(handler: http.RequestListener): Promise<number> {
  const server = http.createServer(handler);
  server.on('connection', (s) => sockets.add(s));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const member = (clientPort: number, adminPort: number | null = null) => ({ host: '127.0.0.1', clientPort, adminPort, address: `127.0.0.1:${clientPort}` });
/**
 * Where a test asserts what a probe ends as, not when: a deadline no loaded machine reaches. At
 * 400 ms a busy machine (a load of 10) answered a junk word late and the outcome was "timeout", not
 * "failed". The tests that time the deadline run on the virtual clock with DEADLINE.
 */
const ROOMY_DEADLINE = 10_000;
const transport = (deadlineMs = ROOMY_DEADLINE) => new MemberTransport(new RequestCounters(), deadlineMs);

describe('the wire', () => {
  it('tells a refused connection apart', async () => {
    const result = await fourLetterWord('127.0.0.1', await freePort(), 'srvr', DEADLINE);
    expect(result).toMatchObject({ ok: false, kind: 'refused' });
    const admin = await adminCommand('127.0.0.1', await freePort(), 'monitor', DEADLINE);
    expect(admin).toMatchObject({ ok: false, kind: 'refused' });
  });

  it('gives up on a member that accepts and never answers, at the deadline', async () => {
    const port = await tcp(() => {});
    const { value, ms } = await onVirtualClock(() => fourLetterWord('127.0.0.1', port, 'srvr', DEADLINE));
    expect(value).toMatchObject({ ok: false, kind: 'timeout' });
    expect(ms).toBeGreaterThanOrEqual(DEADLINE);
    expect(ms).toBeLessThanOrEqual(DEADLINE + STEP_MS);
  });

  it('bounds the whole exchange, not the idle time: a member dripping bytes is cut off', async () => {
    const port = await tcp((socket) => {
      const timer = setInterval(() => socket.write('x'), 50);
      socket.on('close', () => clearInterval(timer));
    });
    const { value, ms } = await onVirtualClock(() => fourLetterWord('127.0.0.1', port, 'srvr', DEADLINE));
    expect(value).toMatchObject({ ok: false, kind: 'timeout' });
    expect(ms).toBeLessThanOrEqual(DEADLINE + STEP_MS);
  });

  it('drops an answer larger than the cap instead of buffering it', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const port = await tcp((socket) => {
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
        if (!socket.destroyed) socket.once('drain', pump);
      };
      pump();
    });
    const result = await fourLetterWord('127.0.0.1', port, 'dump', 10_000);
    expect(result).toMatchObject({ ok: false, kind: 'failed', message: expect.stringContaining(`larger than ${MAX_ANSWER_BYTES}`) });
  });

  it('tells a reset before any answer (what maxClientCnxns does) from a reset mid-answer', async () => {
    // On the virtual clock: a loaded machine must not let the deadline overtake the reset.
    const atOnce = await tcp((socket) => socket.resetAndDestroy());
    expect((await onVirtualClock(() => fourLetterWord('127.0.0.1', atOnce, 'srvr', DEADLINE))).value).toMatchObject({ ok: false, kind: 'closed' });
    const midAnswer = await tcp((socket) => socket.write('Zookeeper version: 3.8', () => setTimeout(() => socket.resetAndDestroy(), 50)));
    expect((await onVirtualClock(() => fourLetterWord('127.0.0.1', midAnswer, 'srvr', DEADLINE))).value).toMatchObject({ ok: false, kind: 'failed' });
  });

  it('refuses to send what is not a four-letter word', async () => {
    expect(await fourLetterWord('127.0.0.1', 1, 'srvr\n', DEADLINE)).toMatchObject({ ok: false, kind: 'failed' });
  });

  it('gives up on an AdminServer that never answers', async () => {
    const port = await httpServer(() => {});
    expect(await adminCommand('127.0.0.1', port, 'monitor', DEADLINE)).toMatchObject({ ok: false, kind: 'timeout' });
  });
});

describe('probeMember against hostile members', () => {
  it.each([
    ['garbage', (s: net.Socket) => s.end(Buffer.from([0, 255, 1, 254, 10, 13, 0x80]))],
    ['an HTTP page', (s: net.Socket) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n')],
  ])('answering %s is unreachable with why, not a throw', async (_what, behave) => {
    const port = await tcp(behave);
    const { probe } = await probeMember(transport(), member(port), true);
    expect(probe.kind).toBe('failed');
    const classified = classifyProbe(probe, DEADLINE);
    expect(classified.state).toBe('unreachable');
    expect(classified.detail).toMatch(/answered srvr with/);
  });

  it.each([
    ['closing without a word', (s: net.Socket) => s.end()],
    ['resetting at once', (s: net.Socket) => s.resetAndDestroy()],
  ])('%s is a connection closed at once: unreachable on its own, never down', async (_what, behave) => {
    const port = await tcp(behave);
    const outcome = await probeMember(transport(), member(port), true);
    expect(outcome).toMatchObject({ probe: { kind: 'closed' }, closedAtOnce: true });
    const classified = classifyProbe(outcome.probe, DEADLINE);
    expect(classified.state).toBe('unreachable');
    expect(classified.detail).toMatch(/closed Keeper's connection at once.*maxClientCnxns/);
  });

  it('a refused member is down; a silent one is unreachable within the deadline', async () => {
    expect(classifyProbe((await probeMember(transport(), member(await freePort()), false)).probe, DEADLINE).state).toBe('down');
    const port = await tcp(() => {});
    const { value, ms } = await onVirtualClock(() => probeMember(transport(DEADLINE), member(port), false));
    expect(classifyProbe(value.probe, DEADLINE)).toMatchObject({ state: 'unreachable', detail: expect.stringContaining('no answer within 0.4 s') });
    expect(ms).toBeLessThanOrEqual(DEADLINE + STEP_MS);
  });

  it('falls back to 4lw when the AdminServer answers HTML or junk, and says the AdminServer did not work', async () => {
    const admin = await httpServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>Error 500 java.lang.NullPointerException</html>');
    });
    const clientPort = await tcp((s) => s.end('junk'));
    const counters = new RequestCounters();
    const { probe, adminWorked } = await probeMember(new MemberTransport(counters, ROOMY_DEADLINE), member(clientPort, admin), true);
    expect(adminWorked).toBe(false);
    expect(probe).toMatchObject({ kind: 'failed' });
    expect(counters.snapshot()[`127.0.0.1:${clientPort}`]).toMatchObject({ admin: 2, fourLetterWords: 2 });
  });

  it('asks the AdminServer, even while it is left alone, when the client port closes at once: a member at maxClientCnxns still says what it is', async () => {
    const admin = await httpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(fixture(req.url === '/commands/server_stats' ? 'admin-server_stats-follower.json' : 'admin-monitor-observer.json'));
    });
    const clientPort = await tcp((s) => s.resetAndDestroy());
    const outcome = await probeMember(transport(), member(clientPort, admin), false);
    expect(outcome).toMatchObject({ probe: { kind: 'answered', source: 'admin' }, adminWorked: true, closedAtOnce: true });
    expect(classifyProbe(outcome.probe, DEADLINE).state).toBe('follower');
  });

  it.each([
    ['resets', (s: net.Socket) => s.resetAndDestroy()],
    ['closes without a word', (s: net.Socket) => s.end()],
  ])('reads cons through the AdminServer from a member that %s at once, and says maxClientCnxns without one', async (_what, behave) => {
    const admin = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(fixture('admin-connections-follower.json'));
    });
    const clientPort = await tcp(behave);
    const spec = { word: 'cons', fromText: parseCons, admin: { command: 'connections', fromBody: consFromConnections }, purpose: 'sessions' as const };
    const viaAdmin = await askMember(transport(), member(clientPort, admin), spec);
    expect(viaAdmin.ok && viaAdmin.value.length).toBeGreaterThan(0);
    const without = await askMember(transport(), member(clientPort), spec);
    expect(without).toMatchObject({ ok: false, reason: expect.stringContaining('maxClientCnxns') });
  });

  it('worst case (AdminServer and client port both silent) stays within two deadlines', async () => {
    const admin = await httpServer(() => {});
    const clientPort = await tcp(() => {});
    const { value, ms } = await onVirtualClock(() => probeMember(transport(DEADLINE), member(clientPort, admin), true));
    expect(value.probe.kind).toBe('timeout');
    expect(ms).toBeLessThanOrEqual(2 * DEADLINE + 2 * STEP_MS);
  });
});

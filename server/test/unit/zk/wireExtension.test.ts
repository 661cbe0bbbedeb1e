/**
 * What Keeper's connection puts on the wire, against a scripted member on a real loopback socket
 * (no ZooKeeper imitated beyond the frames under test): the connect request's read-only flag,
 * SASL DIGEST-MD5 before any other request (the library's queued call and its SetWatches wait),
 * the read-only flag of the answer, whoAmI's body, a read-only member refusing a new session, a
 * refused password, and frames split anywhere.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ZkConnection, type IdentityAnswer } from '../../../src/zk/connection.js';
import { digestMd5Response, parseDirectives } from '../../../src/zk/digestMd5.js';
import { OP_SASL, OP_WHO_AM_I } from '../../../src/zk/protocol.js';
import { saslFactory, type SaslSettings } from '../../../src/zk/sasl.js';
import type { Trouble } from '../../../src/zk/wireExtension.js';

const OP_GET_DATA = 4;
const OP_PING = 11;
const OP_SET_WATCHES = 101;
const CHALLENGE = 'realm="zk-sasl-md5",nonce="n0nce",charset=utf-8,algorithm=md5-sess';

interface Script {
  readOnly?: boolean;
  /** The users the member knows (DIGEST-MD5); absent: no SASL. */
  users?: Record<string, string>;
  /** Answer the connect request with NOT_READ_ONLY (a read-only member without local sessions). */
  refuseSession?: boolean;
  /** Write every frame one byte at a time. */
  dribble?: boolean;
}

interface Seen {
  connect: { sessionId: bigint; readOnly: boolean } | null;
  /** Request types in the order they arrived. */
  ops: number[];
}

const servers: net.Server[] = [];
const connections: ZkConnection[] = [];
const sockets = new Set<net.Socket>();

afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function frame(body: Buffer): Buffer {
  const out = Buffer.alloc(4 + body.length);
  out.writeInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

function replyHeader(xid: number, err = 0): Buffer {
  const b = Buffer.alloc(16);
  b.writeInt32BE(xid, 0);
  b.writeBigInt64BE(5n, 4);
  b.writeInt32BE(err, 12);
  return b;
}

function buffer(data: Buffer | null): Buffer {
  const b = Buffer.alloc(4 + (data?.length ?? 0));
  b.writeInt32BE(data ? data.length : -1, 0);
  data?.copy(b, 4);
  return b;
}

function str(text: string): Buffer {
  return buffer(Buffer.from(text, 'utf8'));
}

const STAT = Buffer.alloc(68);

/** A member that speaks just enough of the protocol, recording what it is sent. */
async function scriptedMember(script: Script): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = { connect: null, ops: [] };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    let connected = false;
    let saslStep = 0;
    let authenticated = !script.users;
    const send = (body: Buffer) => {
      const bytes = frame(body);
      if (!script.dribble) return void socket.write(bytes);
      for (const byte of bytes) socket.write(Buffer.from([byte]));
    };
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const body = pending.subarray(4, 4 + pending.readInt32BE(0));
        pending = pending.subarray(4 + body.length);
        if (!connected) {
          connected = true;
          seen.connect = { sessionId: body.readBigInt64BE(16), readOnly: body[body.length - 1] === 1 };
          if (script.refuseSession) {
            send(replyHeader(0, -119));
            continue;
          }
          const response = Buffer.alloc(4 + 4 + 8 + 4 + 16 + 1);
          response.writeInt32BE(0, 0);
          response.writeInt32BE(6_000, 4);
          response.writeBigInt64BE(0x1234n, 8);
          response.writeInt32BE(16, 16);
          response.writeUInt8(script.readOnly ? 1 : 0, 36);
          send(response);
          continue;
        }
        const xid = body.readInt32BE(0);
        const type = body.readInt32BE(4);
        seen.ops.push(type);
        if (!authenticated && type !== OP_SASL) {
          // sessionRequireClientSASLAuth: anything before SASL closes the session.
          send(replyHeader(xid, -124));
          socket.end();
          return;
        }
        switch (type) {
          case OP_SASL: {
            const token = body.subarray(12, 12 + body.readInt32BE(8)).toString('utf8');
            if (saslStep++ === 0) {
              send(Buffer.concat([replyHeader(xid), str(CHALLENGE)]));
              break;
            }
            const d = parseDirectives(token);
            const user = d.get('username') ?? '';
            const password = script.users?.[user];
            const expected = password === undefined ? null : digestMd5Response(CHALLENGE, { username: user, password }, d.get('cnonce'));
            if (!expected || parseDirectives(expected.response).get('response') !== d.get('response')) {
              send(Buffer.concat([replyHeader(xid, -124), buffer(null)]));
              socket.end();
              return;
            }
            authenticated = true;
            send(Buffer.concat([replyHeader(xid), str(`rspauth=${expected.expectedRspauth}`)]));
            break;
          }
          case OP_WHO_AM_I: {
            const count = Buffer.alloc(4);
            count.writeInt32BE(2, 0);
            send(Buffer.concat([replyHeader(xid), count, str('sasl'), str('keeper'), str('ip'), str('127.0.0.1')]));
            break;
          }
          case OP_GET_DATA:
            send(Buffer.concat([replyHeader(xid), str('value'), STAT]));
            break;
          case OP_PING:
            send(replyHeader(-2));
            break;
          case OP_SET_WATCHES:
            // ZooKeeper answers with the request's own xid (FinalRequestProcessor echoes cxid): -8
            // from the Java client, a plain xid from node-zookeeper-client, which numbers it like
            // any request. Always answering -8 made the library drop the connection (xid out of order).
            send(replyHeader(xid));
            break;
          default:
            send(replyHeader(xid, -6));
        }
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, seen };
}

function open(port: number, sasl: SaslSettings | null, extra: Partial<ConstructorParameters<typeof ZkConnection>[0]> = {}) {
  const connection = new ZkConnection({
    connectionString: `127.0.0.1:${port}`,
    sessionTimeoutMs: 6_000,
    sasl: sasl ? { settings: sasl, factory: saslFactory(sasl, { KEEPER_PW: 'right' }) } : null,
    ...extra,
  });
  connections.push(connection);
  const events = {
    connected: null as null | { readOnly: boolean },
    identity: null as IdentityAnswer | null,
    troubles: [] as Trouble[],
    authFailed: null as string | null,
  };
  connection.on('connected', (info) => (events.connected = info));
  connection.on('identity', (answer) => (events.identity = answer));
  connection.on('trouble', (t) => events.troubles.push(t));
  connection.on('authFailed', ({ note }) => (events.authFailed = note));
  return { connection, events };
}

async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const DIGEST: SaslSettings = { mechanism: 'DIGEST-MD5', username: 'keeper', passwordEnv: 'KEEPER_PW' };

describe('the wire extension', () => {
  it('asks canBeReadOnly and sends SASL before any other request: a call made early waits behind it', async () => {
    const { port, seen } = await scriptedMember({ users: { keeper: 'right' }, dribble: true });
    const { connection, events } = open(port, DIGEST);
    let read: string | null = null;
    // Queued before the connection exists: the library would send it right after the connect response.
    connection.client.getData('/x', (error: unknown, data?: Buffer) => (read = error ? `error ${String(error)}` : (data?.toString() ?? '')));
    connection.connect();
    await until(() => events.connected !== null && read !== null && events.identity !== null, 'connected, read and identity');
    expect(seen.connect?.readOnly).toBe(true);
    expect(seen.ops.slice(0, 2)).toEqual([OP_SASL, OP_SASL]);
    expect(seen.ops).toContain(OP_GET_DATA);
    expect(read).toBe('value');
    expect(events.connected).toMatchObject({ readOnly: false });
    expect(events.identity).toEqual({
      ok: true,
      identities: [
        { scheme: 'sasl', id: 'keeper' },
        { scheme: 'ip', id: '127.0.0.1' },
      ],
    });
  });

  it('re-authenticates on every connection, SetWatches only after SASL', async () => {
    const { port, seen } = await scriptedMember({ users: { keeper: 'right' } });
    const { connection, events } = open(port, DIGEST);
    connection.connect();
    await until(() => events.identity !== null, 'first identity');
    // A watch to re-arm: the library sends SetWatches on the next connection.
    await new Promise<void>((resolve) =>
      connection.client.getData(
        '/w',
        () => undefined,
        () => resolve(),
      ),
    );
    const before = seen.ops.length;
    events.identity = null;
    connection.dropSocket('test: reconnect');
    await until(() => events.identity !== null, 'identity after the reconnect');
    const after = seen.ops.slice(before);
    expect(after.slice(0, 2)).toEqual([OP_SASL, OP_SASL]);
    expect(after).toContain(OP_SET_WATCHES);
    expect(after.indexOf(OP_SET_WATCHES)).toBeGreaterThan(1);
  });

  it('says a wrong password in plain words and ends the handle (the gateway backs off)', async () => {
    const { port } = await scriptedMember({ users: { keeper: 'other' } });
    const { connection, events } = open(port, DIGEST);
    connection.connect();
    await until(() => events.authFailed !== null, 'auth failed');
    expect(events.authFailed).toMatch(/^SASL DIGEST-MD5: 127\.0\.0\.1:\d+ refused user "keeper": wrong password or unknown user/);
    expect(events.authFailed).toContain('environment variable KEEPER_PW');
    expect(events.authFailed).not.toContain('right');
    expect(connection.isDead).toBe(true);
  });

  it('opens the session read-only when the member says so', async () => {
    const { port } = await scriptedMember({ readOnly: true });
    const { connection, events } = open(port, null);
    connection.connect();
    await until(() => events.connected !== null, 'connected');
    expect(events.connected).toMatchObject({ readOnly: true });
  });

  it('does not ask for read-only service when told not to', async () => {
    const { port, seen } = await scriptedMember({});
    const { connection, events } = open(port, null, { canBeReadOnly: false });
    connection.connect();
    await until(() => events.connected !== null, 'connected');
    expect(seen.connect?.readOnly).toBe(false);
  });

  it('explains a read-only member that refuses to open a new session', async () => {
    const { port } = await scriptedMember({ refuseSession: true });
    const { connection, events } = open(port, null);
    connection.connect();
    await until(() => events.troubles.length > 0, 'trouble');
    expect(events.troubles[0]!.note).toMatch(/refused to open a session \(NOT_READ_ONLY: .*localSessionsEnabled=true\)/);
    expect(connection.isDead).toBe(false);
  });

  it('says where the password should have come from when it cannot be read, without loops', async () => {
    const { port } = await scriptedMember({ users: { keeper: 'right' } });
    const { connection, events } = open(port, { mechanism: 'DIGEST-MD5', username: 'keeper', passwordFile: '/nonexistent/keeper.password' });
    connection.connect();
    await until(() => events.authFailed !== null, 'auth failed');
    expect(events.authFailed).toBe('SASL DIGEST-MD5: cannot read the password file /nonexistent/keeper.password: ENOENT');
  });
});

/** speaksTls tells a TLS port from a plain one, and says when it could not tell in time. */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { speaksTls } from '../../../src/zk/tlsMaterial.js';

const servers: net.Server[] = [];
const sockets: net.Socket[] = [];

async function listen(onConnection: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('speaksTls', () => {
  it('is false for a plain port that closes on a TLS hello', async () => {
    const port = await listen((socket) => socket.once('data', () => socket.destroy()));
    expect(await speaksTls('127.0.0.1', port, 2_000)).toBe(false);
  });

  it('is null, not false, when the port gives no verdict in time (a slow handshake is not a plain port)', async () => {
    const port = await listen(() => {});
    expect(await speaksTls('127.0.0.1', port, 200)).toBeNull();
  });
});

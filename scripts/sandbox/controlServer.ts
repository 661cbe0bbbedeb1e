/** The launcher's side of the drill control socket (see controlProtocol.ts). */
import fs from 'node:fs';
import net from 'node:net';
import { controlSocketPath, MAX_REQUEST_BYTES, MAX_SOCKET_PATH, parseRequest, type ControlReply } from './controlProtocol.js';
import type { AddOutcome, DrillOp, DrillOutcome, SandboxMember } from './types.js';

/** What the socket drives: SandboxEnsemble, named by shape so this file does not import it. */
export interface DrillTarget {
  drill(op: DrillOp, id: number, opts?: { timeoutMs?: number }): Promise<DrillOutcome>;
  addMember(id: number, opts?: { role?: 'participant' | 'observer'; timeoutMs?: number; waitServing?: boolean }): Promise<AddOutcome>;
  snapshot(): SandboxMember[];
}

export interface ControlServer {
  readonly path: string;
  close(): Promise<void>;
}

/** A client that connects and says nothing is dropped after this. */
const IDLE_TIMEOUT_MS = 5_000;

/**
 * Listens on <stateDir>/control.sock. The caller holds the state dir's lock, so a socket file
 * already there was left by a launcher that died, and is replaced. Returns null (and logs why)
 * when the path is too long for a Unix socket: the sandbox still runs, without drills.
 */
export async function serveControl(target: DrillTarget, stateDir: string, log: (line: string) => void): Promise<ControlServer | null> {
  const socketPath = controlSocketPath(stateDir);
  if (Buffer.byteLength(socketPath) >= MAX_SOCKET_PATH) {
    log(`drills disabled: ${socketPath} is too long for a Unix socket; use a shorter --state-dir`);
    return null;
  }
  fs.rmSync(socketPath, { force: true });
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    handle(socket, target);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  // The socket must not keep a launcher alive that is otherwise done.
  server.unref();
  return {
    path: socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      }),
  };
}

function handle(socket: net.Socket, target: DrillTarget): void {
  let buffered = '';
  let answered = false;
  const reply = (value: ControlReply) => {
    if (answered) return;
    answered = true;
    socket.setTimeout(0);
    socket.end(`${JSON.stringify(value)}\n`);
  };
  socket.setEncoding('utf8');
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: string) => {
    if (answered) return;
    buffered += chunk;
    const newline = buffered.indexOf('\n');
    if (newline < 0) {
      if (buffered.length > MAX_REQUEST_BYTES) reply({ ok: false, error: `request longer than ${MAX_REQUEST_BYTES} bytes` });
      return;
    }
    const request = parseRequest(buffered.slice(0, newline));
    if ('error' in request) return reply({ ok: false, error: request.error });
    // A drill may take a minute (restart); the client waits for it with its own deadline.
    socket.setTimeout(0);
    // Through then(): even a synchronous throw becomes an answer, never an uncaught exception.
    const answer = (extra: { outcome?: DrillOutcome; added?: AddOutcome }) =>
      reply({ ok: true, launcherPid: process.pid, members: target.snapshot(), ...extra });
    Promise.resolve()
      .then(async () => {
        if (request.op === 'status') return answer({});
        if (request.op === 'add') {
          const opts = { ...(request.role ? { role: request.role } : {}), ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}) };
          return answer({ added: await target.addMember(request.id, opts) });
        }
        return answer({ outcome: await target.drill(request.op, request.id, { timeoutMs: request.timeoutMs }) });
      })
      .catch((err: Error) => reply({ ok: false, error: err.message }));
  });
}

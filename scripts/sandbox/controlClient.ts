/** The CLI's side of the drill control socket (see controlProtocol.ts). */
import fs from 'node:fs';
import net from 'node:net';
import { controlSocketPath, type ControlReply, type ControlRequest } from './controlProtocol.js';
import { RESTART_TIMEOUT_MS } from './ensemble.js';
import type { AddOutcome, DrillOp, DrillOutcome, SandboxMember } from './types.js';

/** No launcher answers on this state dir: nothing to drill. */
export class NoLauncherError extends Error {
  constructor(stateDir: string, why: string) {
    super(`no sandbox launcher answers in ${stateDir} (${why}); start one with \`npm start\` or \`npm run sandbox -- start\``);
    this.name = 'NoLauncherError';
  }
}

/** Sends one request and waits up to timeoutMs for the launcher's answer. */
export function sendControl(stateDir: string, request: ControlRequest, timeoutMs: number): Promise<ControlReply> {
  const socketPath = controlSocketPath(stateDir);
  if (!fs.existsSync(socketPath)) return Promise.reject(new NoLauncherError(stateDir, `no ${socketPath}`));
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the sandbox launcher did not answer "${request.op}" within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A socket file with nobody listening: the launcher died without removing it.
      reject(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? new NoLauncherError(stateDir, `${err.code} on ${socketPath}`) : err);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(answer) as ControlReply);
      } catch {
        reject(new Error(`the sandbox launcher answered something unreadable: ${answer.slice(0, 200)}`));
      }
    });
  });
}

/**
 * Runs a drill in the launcher that owns stateDir and returns what it did; throws its
 * error (e.g. "member 4 does not exist") or NoLauncherError.
 */
export async function runDrill(stateDir: string, op: DrillOp, id: number, opts: { timeoutMs?: number } = {}): Promise<DrillOutcome> {
  const budget = opts.timeoutMs ?? RESTART_TIMEOUT_MS;
  // The launcher keeps its own deadline; ours only covers a launcher that stopped answering.
  const reply = await sendControl(stateDir, { op, id, timeoutMs: budget }, budget + 10_000);
  if (!reply.ok) throw new Error(reply.error);
  if (!reply.outcome) throw new Error(`the sandbox launcher answered "${op}" without an outcome`);
  return reply.outcome;
}

/** Asks the launcher to start member `id` as a learner ready to be added (`npm run sandbox -- add <id>`). */
export async function runAdd(stateDir: string, id: number, opts: { role?: 'participant' | 'observer'; timeoutMs?: number } = {}): Promise<AddOutcome> {
  const budget = opts.timeoutMs ?? RESTART_TIMEOUT_MS;
  const reply = await sendControl(stateDir, { op: 'add', id, ...(opts.role ? { role: opts.role } : {}), timeoutMs: budget }, budget + 10_000);
  if (!reply.ok) throw new Error(reply.error);
  if (!reply.added) throw new Error('the sandbox launcher answered "add" without an outcome');
  return reply.added;
}

/** The launcher's view of its members, or null when no launcher answers. */
export async function launcherMembers(stateDir: string, timeoutMs = 3_000): Promise<{ launcherPid: number; members: SandboxMember[] } | null> {
  try {
    const reply = await sendControl(stateDir, { op: 'status' }, timeoutMs);
    if (!reply.ok) throw new Error(reply.error);
    return { launcherPid: reply.launcherPid, members: reply.members };
  } catch (err) {
    if (err instanceof NoLauncherError) return null;
    throw err;
  }
}

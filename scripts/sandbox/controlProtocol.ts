/**
 * The drill control socket: how `npm run sandbox -- kill 2` (another process) asks the
 * launcher that owns the members (`npm start` or `npm run sandbox -- start`) to act. The
 * launcher does the work itself, so a member restarted by a drill is still its child:
 * tracked, reported by `status`, and stopped by its Ctrl-C.
 *
 * One request per connection, one JSON line each way. The socket lives in the state dir
 * with mode 0600: only the user running the sandbox can drive it.
 */
import path from 'node:path';
import { DRILL_OPS, type AddOutcome, type DrillOp, type DrillOutcome, type SandboxMember } from './types.js';

export type ControlRequest =
  | { op: 'status' }
  | { op: DrillOp; id: number; timeoutMs?: number }
  /** Start a new member as a learner, ready for `reconfig -add` (issue 24). */
  | { op: 'add'; id: number; role?: 'participant' | 'observer'; timeoutMs?: number };

export type ControlReply =
  { ok: true; launcherPid: number; members: SandboxMember[]; outcome?: DrillOutcome; added?: AddOutcome } | { ok: false; error: string };

/** A request line longer than this is refused unread: nothing legitimate comes close. */
export const MAX_REQUEST_BYTES = 1024;
/** Unix socket paths are limited to 108 bytes on Linux (104 elsewhere). */
export const MAX_SOCKET_PATH = 104;

export function controlSocketPath(stateDir: string): string {
  return path.join(path.resolve(stateDir), 'control.sock');
}

/** The request, or a reason it is not one. Never throws: the launcher must survive any line. */
export function parseRequest(line: string): ControlRequest | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: 'the request is not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { error: 'the request is not an object' };
  const { op, id, timeoutMs, role } = value as Record<string, unknown>;
  if (op === 'status') return { op };
  if (typeof op !== 'string' || !(op === 'add' || (DRILL_OPS as readonly string[]).includes(op))) {
    return { error: `unknown op ${JSON.stringify(op)}; expected status, add or one of ${DRILL_OPS.join(', ')}` };
  }
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1) return { error: 'id must be a member number (1, 2, ...)' };
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1000 || timeoutMs > 600_000)) {
    return { error: 'timeoutMs must be an integer from 1000 to 600000' };
  }
  const timeout = timeoutMs === undefined ? {} : { timeoutMs };
  if (op === 'add') {
    if (role !== undefined && role !== 'participant' && role !== 'observer') return { error: 'role must be participant or observer' };
    return { op, id, ...(role === undefined ? {} : { role }), ...timeout };
  }
  if (role !== undefined) return { error: `role applies to add only, not ${op}` };
  return { op: op as DrillOp, id, ...timeout };
}

/**
 * `npm run sandbox -- status`: what the launcher knows of each member's process (running,
 * frozen, stopped and how it ended) next to what the member itself answers (srvr's Mode).
 * Both are needed after a drill: a killed member and a member outside the quorum both fail
 * srvr, and a frozen one only times out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { launcherMembers } from './controlClient.js';
import { fourLetterWord, parseSrvrMode, type TlsClientPem } from './fourLetterWord.js';
import { memberPorts } from './ports.js';
import type { MemberProcessState } from './types.js';

export interface MemberStatus {
  id: number;
  clientPort: number;
  /** The launcher's record; 'unknown' when no launcher answered. */
  process: MemberProcessState | 'unknown';
  pid: number | null;
  /** leader/follower/... when srvr answered with a Mode, else null. */
  mode: string | null;
  /** One line for a person. */
  detail: string;
}

export interface SandboxStatus {
  launcherPid: number | null;
  members: MemberStatus[];
  /** Every member serves. */
  healthy: boolean;
}

const SRVR_TIMEOUT_MS = 1_500;

function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

/** A secure sandbox (`npm start -- --secure`) is asked over TLS, with Keeper's client certificate. */
function securePem(stateDir: string): TlsClientPem | null {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(stateDir, 'secure.json'), 'utf8')) as { tls?: string };
    if (!marker.tls) return null;
    const read = (f: string) => fs.readFileSync(path.join(marker.tls as string, f));
    return { ca: read('sandbox-ca.pem'), cert: read('keeper.pem'), key: read('keeper.key') };
  } catch {
    return null;
  }
}

async function srvr(port: number, pem: TlsClientPem | null): Promise<{ mode: string | null; detail: string }> {
  try {
    const answer = await fourLetterWord('127.0.0.1', port, 'srvr', SRVR_TIMEOUT_MS, pem);
    const mode = parseSrvrMode(answer);
    return { mode, detail: mode ?? answer.trim() };
  } catch (err) {
    return { mode: null, detail: /timed out/.test((err as Error).message) ? 'no answer (hung or frozen?)' : 'down (connection refused)' };
  }
}

/**
 * Asks the launcher of stateDir, then every member. Without a launcher, falls back to the
 * layout given (size, portOffset) and srvr alone.
 */
export async function sandboxStatus(stateDir: string, fallback: { size: number; portOffset: number }): Promise<SandboxStatus> {
  const launcher = await launcherMembers(stateDir);
  const pem = securePem(stateDir);
  const known =
    launcher?.members ??
    Array.from({ length: fallback.size }, (_, i) => ({
      id: i + 1,
      clientPort: memberPorts(i + 1, fallback.portOffset).clientPort,
      state: 'unknown' as const,
      pid: null,
      since: 0,
      lastExit: null,
    }));
  const members = await Promise.all(
    known.map(async (m): Promise<MemberStatus> => {
      const base = { id: m.id, clientPort: m.clientPort, process: m.state, pid: m.pid };
      if (m.state === 'paused') {
        return { ...base, mode: null, detail: `frozen (SIGSTOP) since ${clock(m.since)}: accepts connections, answers nothing; \`thaw ${m.id}\` resumes it` };
      }
      if (m.state === 'stopped') {
        const how = m.lastExit ? `${m.lastExit === 'signal SIGKILL' ? 'killed' : 'stopped'} (${m.lastExit}) at ${clock(m.since)}` : 'not started';
        return { ...base, mode: null, detail: `down: ${how}; \`start ${m.id}\` starts it` };
      }
      const answer = await srvr(m.clientPort, pem);
      return { ...base, ...answer };
    }),
  );
  return { launcherPid: launcher?.launcherPid ?? null, members, healthy: members.every((m) => m.mode !== null) };
}

export function formatStatus(stateDir: string, status: SandboxStatus): string {
  const head =
    status.launcherPid === null
      ? `state dir ${stateDir}: no launcher answers (members probed by port)`
      : `state dir ${stateDir}: launcher pid ${status.launcherPid}`;
  const rows = status.members.map((m) => `  member ${m.id} 127.0.0.1:${m.clientPort}${m.pid === null ? '' : ` pid ${m.pid}`}: ${m.detail}`);
  return [head, ...rows].join('\n');
}

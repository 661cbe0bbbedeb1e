/**
 * One poll of one member: the AdminServer's `server_stats` + `monitor` where it answers,
 * else `srvr` + `mntr` over 4lw. Two requests either way, sent together. Whatever the member
 * answers (or fails to) becomes a ProbeResult; nothing here throws.
 */
import { blockedWord, isNotServing, mntrFromMonitor, parseMntr, parseSrvr, readAdminBody, srvrFromServerStats, type ProbeResult } from '@keeper/shared';
import type { WireResult } from './wire.js';
import type { MemberAddress, MemberTransport } from './transport.js';

export interface ProbeOutcome {
  probe: ProbeResult;
  /** Whether the AdminServer gave usable JSON this time (null: not tried). */
  adminWorked: boolean | null;
  /** The four-letter-word connection was closed at once, without an answer (maxClientCnxns?; see connectionLimit.ts). */
  closedAtOnce: boolean;
}

function wireFailure(result: Extract<WireResult, { ok: false }>, deadlineMs: number): ProbeResult {
  switch (result.kind) {
    case 'refused':
      return { kind: 'refused', message: result.message };
    case 'timeout':
      return { kind: 'timeout', afterMs: deadlineMs };
    case 'closed':
      return { kind: 'closed', message: result.message };
    case 'failed':
      return { kind: 'failed', message: result.message };
    default: {
      const never: never = result.kind;
      throw new Error(`unhandled wire failure ${String(never)}`);
    }
  }
}

/** The AdminServer path; null when it gave nothing usable (disabled, refused, not JSON). */
async function viaAdmin(transport: MemberTransport, member: MemberAddress): Promise<ProbeResult | null> {
  const [stats, monitor] = await Promise.all([transport.admin(member, 'server_stats', 'poll'), transport.admin(member, 'monitor', 'poll')]);
  if (!stats.ok) return null;
  const body = readAdminBody(stats.text);
  if (body.kind === 'refused') {
    // {"error": "This ZooKeeper instance is not currently serving requests"}: an answer.
    return isNotServing(body.error) ? { kind: 'answered', source: 'admin', notServing: true, srvr: null, mntr: null, blocked: [] } : null;
  }
  if (body.kind === 'invalid') return null;
  const srvr = srvrFromServerStats(body.value);
  if (!srvr) return null;
  // monitor answers an HTML 500 page without quorum; it is optional when server_stats worked.
  const monitorBody = monitor.ok ? readAdminBody(monitor.text) : null;
  const mntr = monitorBody?.kind === 'ok' ? mntrFromMonitor(monitorBody.value) : null;
  return { kind: 'answered', source: 'admin', notServing: false, srvr, mntr, blocked: [] };
}

async function viaFourLetterWords(transport: MemberTransport, member: MemberAddress): Promise<ProbeResult> {
  const [srvrAnswer, mntrAnswer] = await Promise.all([transport.fourLetterWord(member, 'srvr', 'poll'), transport.fourLetterWord(member, 'mntr', 'poll')]);
  if (!srvrAnswer.ok) return wireFailure(srvrAnswer, transport.deadlineMs);
  const text = srvrAnswer.text;
  // srvr always says something, even "not whitelisted": nothing at all is a connection closed at once.
  if (text === '') return { kind: 'closed', message: `srvr to ${member.address}: connection closed at once, without an answer` };
  if (isNotServing(text)) return { kind: 'answered', source: '4lw', notServing: true, srvr: null, mntr: null, blocked: [] };
  const blocked: string[] = [];
  const srvrBlocked = blockedWord(text);
  if (srvrBlocked) blocked.push(srvrBlocked);
  let mntr: ReadonlyMap<string, string> | null = null;
  if (mntrAnswer.ok) {
    const word = blockedWord(mntrAnswer.text);
    if (word) blocked.push(word);
    else if (!isNotServing(mntrAnswer.text)) {
      const parsed = parseMntr(mntrAnswer.text);
      mntr = parsed.size > 0 ? parsed : null;
    }
  }
  const srvr = srvrBlocked ? null : parseSrvr(text);
  if (!srvr && !srvrBlocked) {
    const sample = text.trim().slice(0, 80);
    return {
      kind: 'failed',
      message: `answered srvr with something else: ${JSON.stringify(sample)}`,
    };
  }
  return { kind: 'answered', source: '4lw', notServing: false, srvr, mntr, blocked };
}

/**
 * `tryAdmin`: false once the AdminServer proved unusable for this member (the poller
 * re-checks it now and then), so a disabled AdminServer does not double every poll.
 */
export async function probeMember(transport: MemberTransport, member: MemberAddress, tryAdmin: boolean): Promise<ProbeOutcome> {
  try {
    if (tryAdmin && member.adminPort !== null) {
      const admin = await viaAdmin(transport, member);
      if (admin) return { probe: admin, adminWorked: true, closedAtOnce: false };
      const probe = await viaFourLetterWords(transport, member);
      return { probe, adminWorked: false, closedAtOnce: probe.kind === 'closed' };
    }
    const probe = await viaFourLetterWords(transport, member);
    if (probe.kind !== 'closed') return { probe, adminWorked: null, closedAtOnce: false };
    // Closed at once: the AdminServer (not under maxClientCnxns) may say it serves, even while left alone.
    const admin = member.adminPort !== null ? await viaAdmin(transport, member) : null;
    return admin ? { probe: admin, adminWorked: true, closedAtOnce: true } : { probe, adminWorked: null, closedAtOnce: true };
  } catch (error) {
    // Parsers are lenient and the wire never rejects; this is the last line of defence.
    return {
      probe: { kind: 'failed', message: `probe failed: ${error instanceof Error ? error.message : String(error)}` },
      adminWorked: null,
      closedAtOnce: false,
    };
  }
}

/**
 * How the poller and the collectors reach a member: the wire calls with the ensemble's
 * deadline, each one counted. One instance per ensemble, shared by everything that asks.
 */
import { adminCommand, fourLetterWord, type WireResult } from './wire.js';
import type { Purpose, RequestCounters } from './counters.js';

export interface MemberAddress {
  host: string;
  clientPort: number;
  adminPort: number | null;
  /** host:clientPort */
  address: string;
}

export class MemberTransport {
  constructor(
    readonly counters: RequestCounters,
    readonly deadlineMs: number,
  ) {}

  fourLetterWord(member: MemberAddress, word: string, purpose: Purpose): Promise<WireResult> {
    this.counters.record(member.address, '4lw', word, purpose);
    return fourLetterWord(member.host, member.clientPort, word, this.deadlineMs);
  }

  admin(member: MemberAddress, command: string, purpose: Purpose): Promise<WireResult> {
    if (member.adminPort === null) return Promise.resolve({ ok: false, kind: 'failed', message: 'no AdminServer port configured' });
    this.counters.record(member.address, 'admin', command, purpose);
    return adminCommand(member.host, member.adminPort, command, this.deadlineMs);
  }
}

/**
 * How the poller and the collectors reach a member: the wire calls with the ensemble's
 * deadline, each one counted. One instance per ensemble, shared by everything that asks.
 *
 * With the ensemble's TLS settings, four-letter words go over TLS to the client port (a TLS-only
 * member answers them there) and the AdminServer over https when `tls.adminServer` says so
 * (ZooKeeper's AdminServer stays plain HTTP unless configured otherwise). Without them, a plain
 * word closed at once, unanswered, is checked once a minute for a TLS-only port, so such a member
 * is said to speak TLS instead of looking down or at its connection limit.
 */
import { speaksTls, type TlsMaterial } from '../zk/tlsMaterial.js';
import { adminCommand, fourLetterWord, type WireResult } from './wire.js';
import type { Purpose, RequestCounters } from './counters.js';

export interface MemberAddress {
  host: string;
  clientPort: number;
  adminPort: number | null;
  /** host:clientPort */
  address: string;
}

/** How long a port found to speak TLS (or not) is believed before it is checked again. */
const TLS_SNIFF_TTL_MS = 60_000;

export class MemberTransport {
  private readonly tlsPorts = new Map<string, { at: number; tls: boolean }>();

  constructor(
    readonly counters: RequestCounters,
    readonly deadlineMs: number,
    readonly tls: TlsMaterial | null = null,
  ) {}

  async fourLetterWord(member: MemberAddress, word: string, purpose: Purpose): Promise<WireResult> {
    this.counters.record(member.address, '4lw', word, purpose);
    const answer = await fourLetterWord(member.host, member.clientPort, word, this.deadlineMs, this.tls);
    const closedAtOnce = (answer.ok && answer.text === '') || (!answer.ok && answer.kind === 'closed');
    if (this.tls || !closedAtOnce || !(await this.speaksOnlyTls(member))) return answer;
    return {
      ok: false,
      kind: 'failed',
      message: `${word} to ${member.address}: the member speaks only TLS on this port (a plain four-letter word gets no answer): add "tls" to this ensemble's config`,
    };
  }

  admin(member: MemberAddress, command: string, purpose: Purpose): Promise<WireResult> {
    if (member.adminPort === null) return Promise.resolve({ ok: false, kind: 'failed', message: 'no AdminServer port configured' });
    this.counters.record(member.address, 'admin', command, purpose);
    const secure = this.tls?.settings.adminServer === 'https' ? this.tls : null;
    return adminCommand(member.host, member.adminPort, command, this.deadlineMs, secure);
  }

  private async speaksOnlyTls(member: MemberAddress): Promise<boolean> {
    const known = this.tlsPorts.get(member.address);
    if (known && Date.now() - known.at < TLS_SNIFF_TTL_MS) return known.tls;
    const answer = await speaksTls(member.host, member.clientPort, this.deadlineMs);
    // No verdict in time is asked again at the next poll, not remembered as plain for a minute.
    if (answer === null) return false;
    this.tlsPorts.set(member.address, { at: Date.now(), tls: answer });
    return answer;
  }
}

/**
 * Every request Keeper sends to each member, by who sent it: the proof that N browsers cost
 * what one costs (the poller's count per member does not depend on them) and the figures
 * bench/poller.ts prints.
 */
export type Purpose = 'poll' | 'membership' | 'sessions' | 'watches';
export type Channel = '4lw' | 'admin' | 'zk';

export interface MemberCount {
  total: number;
  fourLetterWords: number;
  admin: number;
  /** Reads through the console's own ZooKeeper session (/zookeeper/config). */
  session: number;
  byPurpose: Record<Purpose, number>;
  /** "4lw srvr", "admin monitor", ... */
  byCommand: Record<string, number>;
}

export class RequestCounters {
  private readonly counts = new Map<string, MemberCount>();

  record(address: string, channel: Channel, command: string, purpose: Purpose): void {
    let c = this.counts.get(address);
    if (!c) {
      c = { total: 0, fourLetterWords: 0, admin: 0, session: 0, byPurpose: { poll: 0, membership: 0, sessions: 0, watches: 0 }, byCommand: {} };
      this.counts.set(address, c);
    }
    c.total++;
    if (channel === '4lw') c.fourLetterWords++;
    else if (channel === 'admin') c.admin++;
    else c.session++;
    c.byPurpose[purpose]++;
    const key = `${channel} ${command}`;
    c.byCommand[key] = (c.byCommand[key] ?? 0) + 1;
  }

  /** A deep copy, by member address. */
  snapshot(): Record<string, MemberCount> {
    return Object.fromEntries([...this.counts].map(([address, c]) => [address, { ...c, byPurpose: { ...c.byPurpose }, byCommand: { ...c.byCommand } }]));
  }
}

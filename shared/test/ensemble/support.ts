/** Member statuses for alert tests: a healthy 3-voter ensemble to bend one way at a time. */
import { EMPTY_METRICS } from '../../src/ensemble/index.js';
import type { MemberMetrics, MemberState, MemberStatus } from '../../src/ensemble/types.js';

export function member(id: number, state: MemberState, metrics: Partial<MemberMetrics> = {}, over: Partial<MemberStatus> = {}): MemberStatus {
  return {
    id,
    host: '127.0.0.1',
    clientPort: 2190 + id,
    adminPort: 8090 + id,
    address: `127.0.0.1:${2190 + id}`,
    state,
    configuredRole: state === 'observer' ? 'observer' : 'participant',
    detail: null,
    source: '4lw',
    metrics: { ...EMPTY_METRICS, version: '3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC', ...metrics },
    polledAt: 1_000,
    lastServingAt: 1_000,
    ...over,
  };
}

export function healthy(zxid = '0x100000010'): MemberStatus[] {
  return [member(1, 'follower', { zxid }), member(2, 'follower', { zxid }), member(3, 'leader', { zxid, syncedFollowers: 2 })];
}

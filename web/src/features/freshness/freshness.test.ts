import { describe, expect, it } from 'vitest';
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { initialConnectionStatus, type ConnectionStatus } from '../../socket/connectionStatus';
import { computeFreshness } from './freshness';

const live: ConnectionStatus = { ...initialConnectionStatus(0), phase: 'live', epoch: 2, downSince: null, lostAt: 50 };
const snap = (state: ConsoleSessionSnapshot['state'], since = 100): ConsoleSessionSnapshot => ({
  state,
  sessionId: '0x1',
  member: 'h:1',
  since,
  timeoutMs: 30000,
  sessionsOpened: 1,
  timeline: [],
});

describe('computeFreshness', () => {
  it('is live when link, session and entry are current', () => {
    expect(computeFreshness(live, { snapshot: snap('connected'), epoch: 2 }, 2)).toEqual({ live: true });
    expect(computeFreshness(live, { snapshot: snap('readOnly'), epoch: 2 })).toEqual({ live: true });
  });
  it('is stale as of the session loss', () => {
    const f = computeFreshness(live, { snapshot: snap('disconnected', 120), epoch: 2 }, 2);
    expect(f).toMatchObject({ live: false, asOf: 120 });
  });
  it('is stale as of the link loss, or the earlier session loss', () => {
    const down: ConnectionStatus = { ...live, phase: 'waiting', lostAt: 300 };
    expect(computeFreshness(down, { snapshot: snap('connected'), epoch: 2 })).toMatchObject({ live: false, asOf: 300 });
    expect(computeFreshness(down, { snapshot: snap('expired', 200), epoch: 2 })).toMatchObject({ live: false, asOf: 200 });
  });
  it('treats an entry from an older socket as stale', () => {
    expect(computeFreshness(live, { snapshot: snap('connected'), epoch: 2 }, 1)).toMatchObject({ live: false, asOf: 50 });
  });
});

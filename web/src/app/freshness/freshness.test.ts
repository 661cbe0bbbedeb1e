import { describe, expect, it } from 'vitest';
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { initialConnectionStatus, type ConnectionStatus } from '../../socket/connectionStatus';
import { computeFreshness, NOT_ANSWERING_REASON } from './freshness';

const live: ConnectionStatus = { ...initialConnectionStatus(0), phase: 'live', epoch: 2, downSince: null, lostAt: 50 };
const snap = (state: ConsoleSessionSnapshot['state'], since = 100, confirmedAt: number | null = 90): ConsoleSessionSnapshot => ({
  state,
  sessionId: '0x1',
  member: 'h:1',
  since,
  timeoutMs: 30000,
  sessionsOpened: 1,
  confirmedAt,
  establishedAt: 10,
  timeline: [],
});

describe('computeFreshness', () => {
  it('is live when link, session and entry are current', () => {
    expect(computeFreshness(live, { snapshot: snap('connected'), epoch: 2 }, 2)).toEqual({ live: true });
  });

  it('read-only is served but not live: "as of" the last read-write answer, in the words every view uses', () => {
    const readOnly = {
      ...snap('readOnly'),
      connection: {
        identity: null,
        identityNote: null,
        tls: null,
        sasl: null,
        warning: null,
        problem: null,
        readOnly: { member: 'h:1', memberId: 3, lastReadWriteAt: 80 },
      },
    };
    expect(computeFreshness(live, { snapshot: readOnly, epoch: 2 }, 2)).toEqual({
      live: false,
      asOf: 80,
      reason: 'read-only: member 3 has lost quorum; data as of its last sync',
      readOnly: true,
    });
    // Read-only from the start (Keeper began during the outage): no time to give, still the words.
    expect(computeFreshness(live, { snapshot: snap('readOnly'), epoch: 2 })).toEqual({
      live: false,
      asOf: null,
      reason: 'read-only: member h:1 has lost quorum; data as of its last sync',
      readOnly: true,
    });
  });

  it('is stale as of the last confirmed answer when the session is lost, not the moment the state changed', () => {
    const f = computeFreshness(live, { snapshot: snap('disconnected', 120, 95), epoch: 2 }, 2);
    expect(f).toMatchObject({ live: false, asOf: 95 });
  });

  it('a later change of state without an answer does not move "as of" (disconnected, then connecting)', () => {
    const a = computeFreshness(live, { snapshot: snap('disconnected', 120, 95), epoch: 2 });
    const b = computeFreshness(live, { snapshot: snap('connecting', 30_120, 95), epoch: 2 });
    expect(a).toMatchObject({ asOf: 95 });
    expect(b).toMatchObject({ asOf: 95 });
  });

  it('a member that stopped answering reads "unconfirmed since" its last answer, naming it', () => {
    const f = computeFreshness(live, { snapshot: snap('unconfirmed', 3_000, 900), epoch: 2 }, 2);
    expect(f).toEqual({ live: false, asOf: 900, label: 'unconfirmed since', reason: 'ZooKeeper member h:1 is not answering the console' });
  });

  it('a Keeper server that stops answering is "not answering", as of its last frame', () => {
    const silent: ConnectionStatus = { ...live, phase: 'unanswered', lostAt: 400 };
    expect(computeFreshness(silent, { snapshot: snap('connected'), epoch: 2 }, 2)).toEqual({ live: false, asOf: 400, reason: NOT_ANSWERING_REASON });
    // The earlier of the two losses wins.
    expect(computeFreshness(silent, { snapshot: snap('unconfirmed', 300, 250), epoch: 2 }, 2)).toMatchObject({ asOf: 250 });
  });

  it('is stale as of the link loss, or the earlier session loss', () => {
    const down: ConnectionStatus = { ...live, phase: 'waiting', lostAt: 300 };
    expect(computeFreshness(down, { snapshot: snap('connected'), epoch: 2 })).toMatchObject({ live: false, asOf: 300 });
    expect(computeFreshness(down, { snapshot: snap('expired', 200, 180), epoch: 2 })).toMatchObject({ live: false, asOf: 180 });
  });

  it('treats an entry from an older socket as stale', () => {
    expect(computeFreshness(live, { snapshot: snap('connected'), epoch: 2 }, 1)).toMatchObject({ live: false, asOf: 50 });
  });
});

import { describe, expect, it } from 'vitest';
import type { ConsoleSessionSnapshot } from '@keeper/shared';
import { describeSession } from './describeSession';

const base: ConsoleSessionSnapshot = {
  state: 'connected',
  sessionId: '0x1000a3b52c40001',
  member: '127.0.0.1:2192',
  since: 0,
  timeoutMs: 30_000,
  sessionsOpened: 1,
  confirmedAt: 0,
  establishedAt: 0,
  timeline: [{ at: 0, state: 'connected', sessionId: '0x1000a3b52c40001', member: '127.0.0.1:2192' }],
};

describe('describeSession', () => {
  it("connected is green with member, short id and the ZooKeeper session's own age", () => {
    expect(describeSession(base, 16_000, true)).toEqual({
      tone: 'live',
      headline: 'connected',
      details: ['127.0.0.1:2192', '0x1000a3b…', 'session 16 s'],
    });
  });
  it("the age is the session's, not the state's: a move to another member 2 s ago keeps it", () => {
    const moved = { ...base, since: 14_000, member: '127.0.0.1:2193' };
    expect(describeSession(moved, 16_000, true).details.at(-1)).toBe('session 16 s');
  });
  it('unconfirmed says for how long the member has been silent and names it', () => {
    const d = describeSession({ ...base, state: 'unconfirmed', since: 3_000, confirmedAt: 900 }, 5_000, true);
    expect(d).toEqual({ tone: 'degraded', headline: 'unconfirmed 4 s', details: ['no answer from 127.0.0.1:2192', '0x1000a3b…'] });
  });
  it('disconnected counts up and says when the session may expire', () => {
    const d = describeSession({ ...base, state: 'disconnected', member: null, since: 0 }, 4_000, true);
    expect(d.tone).toBe('degraded');
    expect(d.headline).toBe('disconnected 4 s');
    expect(d.details[0]).toBe('session 0x1000a3b… expires in ≤ 26 s');
  });
  it('a read-only session that lost its connection ended: never "expires in", never red for the timeout', () => {
    const connection = {
      identity: null,
      identityNote: null,
      tls: null,
      sasl: null,
      warning: null,
      problem: null,
      readOnly: { member: '127.0.0.1:2192', memberId: 2, lastReadWriteAt: 0 },
    };
    for (const at of [4_000, 31_000]) {
      const d = describeSession({ ...base, state: 'disconnected', since: 0, connection }, at, true);
      expect(d.tone).toBe('degraded');
      expect(d.details).toEqual(['the read-only session on member 2 ended with its connection', 'reads wait for a new read-only session']);
    }
  });
  it('disconnected past the timeout turns red', () => {
    expect(describeSession({ ...base, state: 'disconnected', since: 0 }, 31_000, true).tone).toBe('lost');
  });
  it('says a session is new after an expiry', () => {
    const snap: ConsoleSessionSnapshot = {
      ...base,
      sessionId: '0x2000b1',
      since: 10_000,
      sessionsOpened: 2,
      timeline: [...base.timeline, { at: 8_000, state: 'expired', sessionId: null, member: null }],
    };
    const d = describeSession({ ...snap, establishedAt: 10_000 }, 70_000, true);
    expect(d.tone).toBe('live');
    // The current state leads; the expiry is a detail, not the headline.
    expect(d.headline).toBe('connected');
    expect(d.details).toEqual(['127.0.0.1:2192', '0x2000b1', 'new after an expiry 1 min ago', 'session 1 min']);
  });
  it('is grey without the link, whatever the last state', () => {
    expect(describeSession(base, 1000, false).tone).toBe('stale');
    expect(describeSession(undefined, 1000, true).headline).toBe('unknown');
  });
});

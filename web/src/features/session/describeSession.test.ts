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
  timeline: [{ at: 0, state: 'connected', sessionId: '0x1000a3b52c40001', member: '127.0.0.1:2192' }],
};

describe('describeSession', () => {
  it('connected is green with member and short id', () => {
    expect(describeSession(base, 1000, true)).toEqual({
      tone: 'live',
      headline: 'connected',
      details: ['127.0.0.1:2192', '0x1000a3b…'],
    });
  });
  it('disconnected counts up and says when the session may expire', () => {
    const d = describeSession({ ...base, state: 'disconnected', member: null, since: 0 }, 4_000, true);
    expect(d.tone).toBe('degraded');
    expect(d.headline).toBe('disconnected 4 s');
    expect(d.details[0]).toBe('session 0x1000a3b… expires in ≤ 26 s');
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
    const d = describeSession(snap, 12_000, true);
    expect(d.tone).toBe('live');
    expect(d.headline).toBe('expired — new session 0x2000b1');
  });
  it('is grey without the link, whatever the last state', () => {
    expect(describeSession(base, 1000, false).tone).toBe('stale');
    expect(describeSession(undefined, 1000, true).headline).toBe('unknown');
  });
});

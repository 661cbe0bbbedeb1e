import { describe, expect, it } from 'vitest';
import {
  applySessionEvent,
  CONSOLE_SESSION_STATES,
  type ConsoleSessionSnapshot,
  type ConsoleSessionState,
  initialSessionSnapshot,
  isLive,
  type SessionEvent,
  TIMELINE_LIMIT,
} from '../src/consoleSession.js';

const T0 = 1_700_000_000_000;
const start = () => initialSessionSnapshot(T0, 30_000);

function connected(at: number, sessionId = '0x100', member: string | null = '127.0.0.1:2181', timeoutMs = 6000, readOnly?: boolean): SessionEvent {
  return { kind: 'connected', at, sessionId, member, timeoutMs, ...(readOnly === undefined ? {} : { readOnly }) };
}

function apply(snap: ConsoleSessionSnapshot, ...events: SessionEvent[]): ConsoleSessionSnapshot {
  return events.reduce(applySessionEvent, snap);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('initialSessionSnapshot', () => {
  it('starts connecting, with no session and one timeline entry', () => {
    expect(start()).toEqual({
      state: 'connecting',
      sessionId: null,
      member: null,
      since: T0,
      timeoutMs: 30_000,
      sessionsOpened: 0,
      confirmedAt: null,
      establishedAt: null,
      timeline: [{ at: T0, state: 'connecting', sessionId: null, member: null }],
    });
  });
});

describe('applySessionEvent: transitions', () => {
  it('connecting -> connected records session, member, negotiated timeout and counts a session', () => {
    const s = apply(start(), connected(T0 + 10, '0xabc', 'zk1:2181', 4000));
    expect(s).toMatchObject({ state: 'connected', sessionId: '0xabc', member: 'zk1:2181', since: T0 + 10, timeoutMs: 4000, sessionsOpened: 1 });
    expect(s.timeline.at(-1)).toEqual({ at: T0 + 10, state: 'connected', sessionId: '0xabc', member: 'zk1:2181' });
  });

  it('connected with readOnly goes to readOnly', () => {
    const s = apply(start(), connected(T0 + 1, '0x1', 'zk1:2181', 4000, true));
    expect(s.state).toBe('readOnly');
    expect(s.sessionsOpened).toBe(1);
    expect(apply(start(), connected(T0 + 1, '0x1', 'zk1:2181', 4000, false)).state).toBe('connected');
  });

  it('readOnly -> connected on the same session is a transition but not a new session', () => {
    const s = apply(start(), connected(T0 + 1, '0x1', 'zk1:2181', 4000, true), connected(T0 + 2, '0x1', 'zk1:2181', 4000));
    expect(s.state).toBe('connected');
    expect(s.sessionsOpened).toBe(1);
    expect(s.timeline.map((e) => e.state)).toEqual(['connecting', 'readOnly', 'connected']);
  });

  it('disconnected keeps the session id (it may still be alive) but drops the member', () => {
    const s = apply(start(), connected(T0 + 1, '0x1'), { kind: 'disconnected', at: T0 + 2, note: 'no answer from zk1' });
    expect(s).toMatchObject({ state: 'disconnected', sessionId: '0x1', member: null, since: T0 + 2, timeoutMs: 6000 });
    expect(s.timeline.at(-1)).toEqual({ at: T0 + 2, state: 'disconnected', sessionId: '0x1', member: null, note: 'no answer from zk1' });
  });

  it('reconnecting to the same session on another member does not count a new session', () => {
    const s = apply(
      start(),
      connected(T0 + 1, '0x1', 'zk1:2181'),
      { kind: 'disconnected', at: T0 + 2 },
      { kind: 'connecting', at: T0 + 3 },
      connected(T0 + 4, '0x1', 'zk2:2181'),
    );
    expect(s).toMatchObject({ state: 'connected', sessionId: '0x1', member: 'zk2:2181', sessionsOpened: 1 });
  });

  it('connecting keeps the session id while reconnecting', () => {
    const s = apply(start(), connected(T0 + 1, '0x1'), { kind: 'connecting', at: T0 + 2, note: 'trying zk2' });
    expect(s).toMatchObject({ state: 'connecting', sessionId: '0x1', member: null });
    expect(s.timeline.at(-1)!.note).toBe('trying zk2');
  });

  it('expired clears the session id, and the next connection counts as a new session', () => {
    const expired = apply(start(), connected(T0 + 1, '0x1'), { kind: 'disconnected', at: T0 + 2 }, { kind: 'expired', at: T0 + 3 });
    expect(expired).toMatchObject({ state: 'expired', sessionId: null, member: null, sessionsOpened: 1 });
    const again = apply(expired, { kind: 'connecting', at: T0 + 4 }, connected(T0 + 5, '0x2', 'zk3:2181', 5000));
    expect(again).toMatchObject({ state: 'connected', sessionId: '0x2', member: 'zk3:2181', timeoutMs: 5000, sessionsOpened: 2 });
  });

  it('a different session id without a prior expiry also counts as a new session', () => {
    const s = apply(start(), connected(T0 + 1, '0x1'), { kind: 'disconnected', at: T0 + 2 }, connected(T0 + 3, '0x2'));
    expect(s.sessionsOpened).toBe(2);
  });

  it('authFailed keeps the session id and drops the member', () => {
    const s = apply(start(), connected(T0 + 1, '0x1'), { kind: 'authFailed', at: T0 + 2, note: 'bad digest' });
    expect(s).toMatchObject({ state: 'authFailed', sessionId: '0x1', member: null, since: T0 + 2 });
    expect(s.timeline.at(-1)!.note).toBe('bad digest');
  });

  it('closed clears the session and is terminal', () => {
    const closed = apply(start(), connected(T0 + 1, '0x1'), { kind: 'closed', at: T0 + 2 });
    expect(closed).toMatchObject({ state: 'closed', sessionId: null, member: null, since: T0 + 2 });
    const events: SessionEvent[] = [
      { kind: 'connecting', at: T0 + 3 },
      connected(T0 + 4, '0x9'),
      { kind: 'disconnected', at: T0 + 5 },
      { kind: 'expired', at: T0 + 6 },
      { kind: 'authFailed', at: T0 + 7 },
      { kind: 'closed', at: T0 + 8 },
    ];
    for (const e of events) expect(applySessionEvent(closed, e)).toBe(closed);
  });

  it('every state is reachable from every non-closed state (unconfirmed only from a live one)', () => {
    const toEvent: Record<ConsoleSessionState, (at: number) => SessionEvent> = {
      connecting: (at) => ({ kind: 'connecting', at }),
      connected: (at) => connected(at, '0x7'),
      unconfirmed: (at) => ({ kind: 'unconfirmed', at }),
      readOnly: (at) => connected(at, '0x7', 'zk1:2181', 6000, true),
      disconnected: (at) => ({ kind: 'disconnected', at }),
      expired: (at) => ({ kind: 'expired', at }),
      authFailed: (at) => ({ kind: 'authFailed', at }),
      closed: (at) => ({ kind: 'closed', at }),
    };
    for (const from of CONSOLE_SESSION_STATES) {
      if (from === 'closed') continue;
      const base =
        from === 'connecting'
          ? start()
          : from === 'unconfirmed'
            ? apply(start(), connected(T0), toEvent.unconfirmed(T0 + 1))
            : apply(start(), toEvent[from](T0 + 1));
      expect(base.state).toBe(from);
      for (const to of CONSOLE_SESSION_STATES) {
        if (to === from) continue;
        const next = applySessionEvent(base, toEvent[to](T0 + 2));
        if (to === 'unconfirmed' && !isLive(from)) {
          expect(next, `${from} -> ${to} is ignored`).toBe(base);
          continue;
        }
        expect(next.state, `${from} -> ${to}`).toBe(to);
        expect(next.since).toBe(T0 + 2);
        expect(next.timeline).toHaveLength(base.timeline.length + 1);
        expect(next.timeline.at(-1)!.state).toBe(to);
      }
    }
  });

  it('does not mutate the previous snapshot', () => {
    const s0 = deepFreeze(apply(start(), connected(T0 + 1, '0x1')));
    const copy = structuredClone(s0);
    const s1 = apply(s0, { kind: 'disconnected', at: T0 + 2 }, { kind: 'expired', at: T0 + 3 });
    expect(s0).toEqual(copy);
    expect(s1).not.toBe(s0);
    expect(s1.timeline).not.toBe(s0.timeline);
  });

  it('omits an empty note from the timeline entry', () => {
    const s = apply(start(), { kind: 'disconnected', at: T0 + 1, note: '' });
    expect(s.timeline.at(-1)).not.toHaveProperty('note');
    const t = apply(start(), { kind: 'disconnected', at: T0 + 1 });
    expect(t.timeline.at(-1)).not.toHaveProperty('note');
  });

  it('keeps the timeout through non-connected events', () => {
    const s = apply(start(), connected(T0 + 1, '0x1', 'zk1:2181', 4000), { kind: 'disconnected', at: T0 + 2 }, { kind: 'expired', at: T0 + 3 });
    expect(s.timeoutMs).toBe(4000);
  });
});

describe('applySessionEvent: repeats', () => {
  it('returns the same snapshot for a repeated state with the same session and member', () => {
    const c = apply(start(), connected(T0 + 1, '0x1', 'zk1:2181'));
    // A repeated connected is still an answer: only the confirmation time moves.
    expect(applySessionEvent(c, connected(T0 + 5, '0x1', 'zk1:2181'))).toEqual({ ...c, confirmedAt: T0 + 5 });
    const d = apply(c, { kind: 'disconnected', at: T0 + 6 });
    expect(applySessionEvent(d, { kind: 'disconnected', at: T0 + 7, note: 'again' })).toBe(d);
    const e = apply(d, { kind: 'expired', at: T0 + 8 });
    expect(applySessionEvent(e, { kind: 'expired', at: T0 + 9 })).toBe(e);
    expect(applySessionEvent(start(), { kind: 'connecting', at: T0 + 9 })).toEqual(start());
  });

  it('is not a repeat when the member changes', () => {
    const c = apply(start(), connected(T0 + 1, '0x1', 'zk1:2181'));
    const moved = applySessionEvent(c, connected(T0 + 2, '0x1', 'zk2:2181'));
    expect(moved).not.toBe(c);
    expect(moved.member).toBe('zk2:2181');
    expect(moved.timeline).toHaveLength(c.timeline.length + 1);
    expect(moved.sessionsOpened).toBe(1);
  });
});

describe('applySessionEvent: timeline cap', () => {
  it(`appends one entry per change and keeps only the last ${TIMELINE_LIMIT}`, () => {
    expect(TIMELINE_LIMIT).toBe(200);
    let s = start();
    const total = TIMELINE_LIMIT * 2 + 7;
    for (let n = 1; n < total; n++) {
      const e: SessionEvent = n % 2 === 1 ? connected(T0 + n, '0x1', `zk${n}:2181`) : { kind: 'disconnected', at: T0 + n };
      s = applySessionEvent(s, e);
      expect(s.timeline).toHaveLength(Math.min(n + 1, TIMELINE_LIMIT));
    }
    // The oldest entries were dropped; the newest are in order.
    expect(s.timeline[0]!.at).toBe(T0 + total - TIMELINE_LIMIT);
    expect(s.timeline.at(-1)!.at).toBe(T0 + total - 1);
    const ats = s.timeline.map((e) => e.at);
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
    expect(s.sessionsOpened).toBe(1);
  });
});

describe('isLive', () => {
  it('is true only while connected or read-only', () => {
    const live = CONSOLE_SESSION_STATES.filter(isLive);
    expect(live).toEqual(['connected', 'readOnly']);
  });
});

describe('confirmation: the "as of" time of everything the console shows', () => {
  it('a connected member that stops answering becomes unconfirmed, keeping the last answer as confirmedAt', () => {
    const s = apply(start(), connected(T0 + 10), { kind: 'unconfirmed', at: T0 + 3000, confirmedAt: T0 + 900, note: 'no answer for 2.1 s' });
    expect(s).toMatchObject({ state: 'unconfirmed', sessionId: '0x100', member: '127.0.0.1:2181', confirmedAt: T0 + 900, since: T0 + 3000 });
    expect(isLive(s.state)).toBe(false);
    expect(s.timeline.at(-1)).toMatchObject({ state: 'unconfirmed', note: 'no answer for 2.1 s' });
  });

  it('answering again restores connected on the same session without counting a new one', () => {
    const s = apply(start(), connected(T0 + 10), { kind: 'unconfirmed', at: T0 + 3000, confirmedAt: T0 + 900 }, connected(T0 + 3500));
    expect(s).toMatchObject({ state: 'connected', sessionsOpened: 1, confirmedAt: T0 + 3500, establishedAt: T0 + 10 });
  });

  it('never advances on a change of state without an answer (disconnected -> connecting keeps the time)', () => {
    const lost = apply(start(), connected(T0 + 10), { kind: 'disconnected', at: T0 + 5000, confirmedAt: T0 + 4000 });
    expect(lost.confirmedAt).toBe(T0 + 4000);
    const retrying = apply(lost, { kind: 'connecting', at: T0 + 30_000 }, { kind: 'expired', at: T0 + 40_000 }, { kind: 'connecting', at: T0 + 41_000 });
    expect(retrying.confirmedAt).toBe(T0 + 4000);
  });

  it('never moves backwards, whatever an event claims', () => {
    const s = apply(start(), connected(T0 + 5000), { kind: 'disconnected', at: T0 + 6000, confirmedAt: T0 + 100 });
    expect(s.confirmedAt).toBe(T0 + 5000);
  });

  it('a repeat of the same state with a later answer only moves confirmedAt', () => {
    const a = apply(start(), connected(T0 + 10), { kind: 'disconnected', at: T0 + 20, confirmedAt: T0 + 15 });
    const b = applySessionEvent(a, { kind: 'disconnected', at: T0 + 30, confirmedAt: T0 + 18 });
    expect(b).toMatchObject({ state: 'disconnected', since: T0 + 20, confirmedAt: T0 + 18 });
    expect(b.timeline).toHaveLength(a.timeline.length);
  });

  it("establishedAt is the session's own age: unchanged by a move to another member, reset by a new session", () => {
    const moved = apply(start(), connected(T0 + 10, '0x1', 'zk1:2181'), { kind: 'disconnected', at: T0 + 20 }, connected(T0 + 30, '0x1', 'zk2:2181'));
    expect(moved.establishedAt).toBe(T0 + 10);
    const renewed = apply(moved, { kind: 'expired', at: T0 + 40 });
    expect(renewed.establishedAt).toBeNull();
    expect(apply(renewed, connected(T0 + 50, '0x2')).establishedAt).toBe(T0 + 50);
  });

  it('unconfirmed is ignored unless the session was live', () => {
    const s = apply(start(), { kind: 'disconnected', at: T0 + 1 });
    expect(applySessionEvent(s, { kind: 'unconfirmed', at: T0 + 2 })).toBe(s);
  });
});

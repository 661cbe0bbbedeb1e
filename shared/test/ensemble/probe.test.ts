/** Classifying what a poll found: every kind of answer and failure becomes one state with a why. */
import { describe, expect, it } from 'vitest';
import { classifyProbe, parseMntr, parseSrvr, type ProbeResult } from '../../src/ensemble/index.js';
import { fx } from './fixtures.js';

const answered = (over: Partial<Extract<ProbeResult, { kind: 'answered' }>>): ProbeResult => ({
  kind: 'answered',
  source: '4lw',
  notServing: false,
  srvr: null,
  mntr: null,
  blocked: [],
  ...over,
});

describe('classifyProbe', () => {
  it('distinguishes refused (down) from no answer (unreachable)', () => {
    expect(classifyProbe({ kind: 'refused', message: 'ECONNREFUSED' }, 2000)).toMatchObject({
      state: 'down',
      detail: expect.stringContaining('connection refused'),
    });
    expect(classifyProbe({ kind: 'timeout', afterMs: 2000 }, 2000)).toMatchObject({
      state: 'unreachable',
      detail: expect.stringContaining('no answer within 2 s'),
    });
    expect(classifyProbe({ kind: 'timeout', afterMs: 1500 }, 1500).detail).toContain('1.5 s');
    expect(classifyProbe({ kind: 'failed', message: 'host not found' }, 2000)).toEqual({ state: 'unreachable', detail: 'host not found' });
  });

  it.each([
    ['leader', fx.srvrLeader],
    ['follower', fx.srvrFollower],
    ['observer', fx.srvrObserver],
    ['standalone', fx.srvrStandalone],
  ] as const)('reads %s from srvr', (state, text) => {
    expect(classifyProbe(answered({ srvr: parseSrvr(text), mntr: parseMntr(fx.mntrFollower) }), 2000)).toEqual({ state, detail: null });
  });

  it('says not-serving for a member without quorum, whatever else it sent', () => {
    expect(classifyProbe(answered({ notServing: true }), 2000)).toMatchObject({
      state: 'not-serving',
      detail: expect.stringContaining('not currently serving'),
    });
    expect(classifyProbe(answered({ notServing: true, source: 'admin' }), 2000).state).toBe('not-serving');
  });

  it('treats read-only mode as not serving, with why', () => {
    expect(classifyProbe(answered({ srvr: parseSrvr('Mode: read-only') }), 2000)).toMatchObject({
      state: 'not-serving',
      detail: expect.stringContaining('read-only'),
    });
  });

  it('keeps the role when only mntr is blocked, and names the setting and the word', () => {
    const c = classifyProbe(answered({ srvr: parseSrvr(fx.srvrFollower), blocked: ['mntr'] }), 2000);
    expect(c.state).toBe('follower');
    expect(c.detail).toContain('4lw.commands.whitelist');
    expect(c.detail).toContain('mntr is not in');
  });

  it('says not-whitelisted when srvr itself is blocked', () => {
    const c = classifyProbe(answered({ blocked: ['srvr', 'mntr'] }), 2000);
    expect(c.state).toBe('not-whitelisted');
    expect(c.detail).toContain('srvr, mntr are not in 4lw.commands.whitelist');
    expect(c.detail).toContain('admin.enableServer');
  });

  it('says unknown for an answer without a usable mode', () => {
    expect(classifyProbe(answered({ srvr: parseSrvr('Zookeeper version: 3.9.2') }), 2000)).toMatchObject({ state: 'unknown' });
    expect(classifyProbe(answered({ srvr: parseSrvr('Mode: looking') }), 2000)).toMatchObject({ state: 'unknown', detail: expect.stringContaining('looking') });
  });
});

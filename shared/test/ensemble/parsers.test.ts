/** The 4lw parsers against real answers from the sandbox, plus the older and odder forms. */
import { describe, expect, it } from 'vitest';
import { blockedWord, isNotServing, parseCons, parseConsLine, parseMntr, parseSrvr, parseWchp, parseWchs } from '../../src/ensemble/index.js';
import { fx } from './fixtures.js';

describe('parseSrvr', () => {
  it('reads a leader', () => {
    expect(parseSrvr(fx.srvrLeader)).toEqual({
      version: '3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC',
      latencyMin: 0,
      latencyAvg: 1.6744,
      latencyMax: 20,
      received: 78,
      sent: 83,
      connections: 4,
      outstanding: 0,
      zxid: '0x10000003a',
      mode: 'leader',
      nodeCount: 17,
    });
  });

  it.each([
    ['follower', fx.srvrFollower],
    ['observer', fx.srvrObserver],
    ['standalone', fx.srvrStandalone],
  ])('reads the mode of a %s', (mode, text) => {
    expect(parseSrvr(text)?.mode).toBe(mode);
  });

  it('reads 3.4-style answers (integer average, CRLF)', () => {
    const text =
      'Zookeeper version: 3.4.14-4c25d480e66aadd371de8bd2fd8da255ac140bcf, built on 03/06/2019 16:18 GMT\r\nLatency min/avg/max: 0/0/3\r\nReceived: 10\r\nSent: 9\r\nConnections: 1\r\nOutstanding: 0\r\nZxid: 0x200000000\r\nMode: follower\r\nNode count: 4\r\n';
    expect(parseSrvr(text)).toMatchObject({ latencyAvg: 0, latencyMax: 3, zxid: '0x200000000', mode: 'follower', nodeCount: 4 });
  });

  it('normalises the zxid to lower case and tolerates missing lines', () => {
    expect(parseSrvr('Mode: Leader\nZxid: 0X1A')).toMatchObject({ mode: 'leader', zxid: '0x1a', version: null, received: null });
  });

  it('returns null for text that is not srvr', () => {
    expect(parseSrvr(fx.srvrNotServing)).toBeNull();
    expect(parseSrvr('')).toBeNull();
    expect(parseSrvr('mntr is not executed because it is not in the whitelist.')).toBeNull();
  });
});

describe('refusals', () => {
  it('recognises "not currently serving"', () => {
    expect(isNotServing(fx.srvrNotServing)).toBe(true);
    expect(isNotServing(fx.srvrLeader)).toBe(false);
  });

  it('names the word a whitelist blocked', () => {
    expect(blockedWord(fx.mntrNotWhitelisted)).toBe('mntr');
    expect(blockedWord(fx.consNotWhitelisted)).toBe('cons');
    expect(blockedWord(fx.srvrLeader)).toBeNull();
    expect(blockedWord(fx.srvrNotServing)).toBeNull();
  });
});

describe('parseMntr', () => {
  it('reads every key of a leader without the zk_ prefix', () => {
    const m = parseMntr(fx.mntrLeader);
    expect(m.get('server_state')).toBe('leader');
    expect(m.get('peer_state')).toBe('leading - broadcast');
    expect(m.get('synced_followers')).toBe('2');
    expect(m.get('synced_observers')).toBe('1');
    expect(m.get('version')).toBe('3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC');
    expect(m.size).toBeGreaterThan(400);
  });

  it('has no leader-only keys on an observer', () => {
    const m = parseMntr(fx.mntrObserver);
    expect(m.get('server_state')).toBe('observer');
    expect(m.has('synced_followers')).toBe(false);
  });

  it('accepts space padding and ignores junk', () => {
    const m = parseMntr('zk_avg_latency   3\nnot a line\nzk_server_state\tfollower\r\n');
    expect([...m.entries()]).toEqual([
      ['avg_latency', '3'],
      ['server_state', 'follower'],
    ]);
  });

  it('is empty for refusals', () => {
    expect(parseMntr(fx.mntrNotWhitelisted).size).toBe(0);
    expect(parseMntr(fx.srvrNotServing).size).toBe(0);
  });
});

describe('parseCons', () => {
  it('reads sessions and the session-less probe connection', () => {
    const all = parseCons(fx.consFollower);
    expect(all).toHaveLength(4);
    const probe = all.find((c) => c.sessionId === null);
    expect(probe).toMatchObject({ client: '127.0.0.1:42562', queued: 0, received: 1, sent: 0, timeoutMs: null });
    const long = all.find((c) => c.sessionId === '0x100002f75570004');
    expect(long).toEqual({
      client: '127.0.0.1:45396',
      queued: 0,
      received: 7,
      sent: 7,
      sessionId: '0x100002f75570004',
      lastOperation: 'GETD',
      establishedAt: 1795322333613,
      timeoutMs: 900000,
      lastZxid: '0x10000003a',
      lastResponseMono: 3239377,
      latencyLast: 1,
      latencyMin: 0,
      latencyAvg: 3,
      latencyMax: 8,
    });
  });

  it('reads host-named and IPv6 client addresses', () => {
    expect(parseConsLine(' zk-client.example/10.0.0.5:4000[1](queued=0,recved=1,sent=1,sid=0xA,to=5000)')?.client).toBe('10.0.0.5:4000');
    expect(parseConsLine(' /[0:0:0:0:0:0:0:1]:4000[1](queued=0,recved=1,sent=1,sid=0xa)')).toMatchObject({
      client: '[0:0:0:0:0:0:0:1]:4000',
      sessionId: '0xa',
    });
  });

  it('ignores lines that are not connections', () => {
    expect(parseCons(fx.consNotWhitelisted)).toEqual([]);
    expect(parseCons('\n\n')).toEqual([]);
  });
});

describe('watches', () => {
  it('reads wchs', () => {
    expect(parseWchs(fx.wchsFollower)).toEqual({ connections: 3, paths: 2, watches: 4 });
    expect(parseWchs('0 connections watching 0 paths\nTotal watches:0')).toEqual({ connections: 0, paths: 0, watches: 0 });
    expect(parseWchs('wchs is not executed because it is not in the whitelist.')).toBeNull();
  });

  it('reads wchp', () => {
    const byPath = parseWchp(fx.wchpFollower);
    expect([...byPath.keys()]).toEqual(['/app/config', '/app/locks/leader']);
    expect(byPath.get('/app/locks/leader')).toEqual(['0x100002f75570005', '0x100002f75570004', '0x100002f75570006']);
    expect(parseWchp('')).toEqual(new Map());
  });
});

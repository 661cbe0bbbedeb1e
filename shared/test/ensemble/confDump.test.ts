/** conf / /zookeeper/config and dump, from real answers and the older or odder forms. */
import { describe, expect, it } from 'vitest';
import { parseConf, parseDump, parseJavaDate, parseServerLine } from '../../src/ensemble/index.js';
import { fx } from './fixtures.js';

describe('parseServerLine', () => {
  it.each([
    [
      'server.1',
      '127.0.0.1:27981:28981:participant;127.0.0.1:27291',
      { id: 1, host: '127.0.0.1', peerPort: 27981, electionPort: 28981, role: 'participant', clientHost: '127.0.0.1', clientPort: 27291 },
    ],
    ['server.4', 'zk4:2888:3888:observer', { id: 4, host: 'zk4', peerPort: 2888, electionPort: 3888, role: 'observer', clientHost: null, clientPort: null }],
    ['server.2', 'zk2:2888:3888', { id: 2, host: 'zk2', role: 'participant', clientPort: null }],
    ['server.2', 'zk2:2888:3888;2181', { host: 'zk2', clientHost: null, clientPort: 2181 }],
    ['server.2', 'zk2:2888:3888:participant;0.0.0.0:2181', { clientHost: null, clientPort: 2181 }],
    [
      'server.3',
      '[2001:db8::3]:2888:3888:participant;[2001:db8::3]:2181',
      { host: '2001:db8::3', peerPort: 2888, clientHost: '2001:db8::3', clientPort: 2181 },
    ],
    ['server.5', 'zk5a:2888:3888|zk5b:2888:3888;2181', { host: 'zk5a', clientPort: 2181 }],
    ['server.6', ' zk6:2888:3888:OBSERVER ; 2186 ', { host: 'zk6', role: 'observer', clientPort: 2186 }],
  ])('%s=%s', (key, value, expected) => {
    expect(parseServerLine(key, value)).toMatchObject(expected);
  });

  it('rejects what is not a server entry', () => {
    expect(parseServerLine('clientPort', '2181')).toBeNull();
    expect(parseServerLine('server.x', 'zk:1:2')).toBeNull();
    expect(parseServerLine('server.1', '')).toBeNull();
    expect(parseServerLine('server.1', '[::1:2888:3888')).toBeNull();
    expect(parseServerLine('server.1', 'zk1:99999:3888')).toMatchObject({ peerPort: null });
  });
});

describe('parseConf', () => {
  it('reads a leader: settings, its id and the membership with roles', () => {
    const conf = parseConf(fx.confLeader);
    expect(conf.serverId).toBe(3);
    expect(conf.settings.get('maxSessionTimeout')).toBe('1000000');
    expect(conf.configVersion).toBe('0');
    expect(conf.servers.map((s) => [s.id, s.role, s.clientPort])).toEqual([
      [1, 'participant', 27291],
      [2, 'participant', 27292],
      [3, 'participant', 27293],
      [4, 'observer', 27294],
    ]);
  });

  it('reads an observer and a follower', () => {
    expect(parseConf(fx.confObserver)).toMatchObject({ serverId: 4 });
    expect(parseConf(fx.confObserver).settings.get('peerType')).toBe('1');
    expect(parseConf(fx.confFollower).servers).toHaveLength(3);
  });

  it('has no servers on a standalone member', () => {
    expect(parseConf(fx.confStandalone)).toMatchObject({ serverId: 0, servers: [] });
  });

  it('reads /zookeeper/config content', () => {
    const text = 'server.1=127.0.0.1:27981:28981:participant;127.0.0.1:27291\nserver.2=127.0.0.1:27982:28982:participant;127.0.0.1:27292\nversion=100000000';
    expect(parseConf(text)).toMatchObject({ serverId: null, configVersion: '100000000' });
    expect(parseConf(text).servers.map((s) => s.clientPort)).toEqual([27291, 27292]);
  });

  it('gives 3.4-style servers the top-level client port', () => {
    const conf = parseConf('clientPort=2181\nserver.2=zk2:2888:3888\nserver.1=zk1:2888:3888\n# comment\n');
    expect(conf.servers.map((s) => [s.id, s.host, s.clientPort])).toEqual([
      [1, 'zk1', 2181],
      [2, 'zk2', 2181],
    ]);
  });
});

describe('parseJavaDate', () => {
  it('reads unambiguous zones', () => {
    expect(parseJavaDate('Sun Nov 22 04:52:14 UTC 2026')).toBe(Date.UTC(2026, 10, 22, 4, 52, 14));
    expect(parseJavaDate('Sun Nov 22 04:52:14 GMT 2026')).toBe(Date.UTC(2026, 10, 22, 4, 52, 14));
    expect(parseJavaDate('Sun Nov 22 05:52:14 GMT+01:00 2026')).toBe(Date.UTC(2026, 10, 22, 4, 52, 14));
    expect(parseJavaDate('Sat Nov 21 23:22:14 GMT-0530 2026')).toBe(Date.UTC(2026, 10, 22, 4, 52, 14));
    expect(parseJavaDate('Mon Mar  2 01:02:03 UTC 2026')).toBe(Date.UTC(2026, 2, 2, 1, 2, 3));
  });

  it('refuses ambiguous zones and other text', () => {
    expect(parseJavaDate('Sun Nov 22 04:52:14 CST 2026')).toBeNull();
    expect(parseJavaDate('2026-11-22T04:52:14Z')).toBeNull();
    expect(parseJavaDate('Sun Foo 22 04:52:14 UTC 2026')).toBeNull();
  });
});

describe('parseDump', () => {
  it('reads the leader form: expiry per session and ephemerals per session', () => {
    const dump = parseDump(fx.dumpLeader);
    expect(dump.tracker).toBe('leader');
    expect(dump.sessions.size).toBe(14);
    // The dead worker's 15-minute session, still held: it expires at 04:52:14.
    expect(dump.sessions.get('0x100002f75570000')).toEqual({ timeoutMs: null, expiresAt: Date.UTC(2026, 10, 22, 4, 52, 14) });
    expect(dump.ephemerals.get('0x100002f75570000')).toEqual(['/app/workers/w-0000000000', '/app/workers/w-0000000001']);
    expect(dump.ephemerals.get('0x200002f766c0004')).toEqual(['/app/members/m-0000000001']);
    expect(dump.ephemerals.size).toBe(4);
    // The "Connections dump" part lists session ids too; they must not become sessions.
    expect(dump.sessions.has('0x0')).toBe(false);
  });

  it('reads the learner form: every session with its timeout', () => {
    const dump = parseDump(fx.dumpFollower);
    expect(dump.tracker).toBe('learner');
    expect(dump.sessions.get('0x100002f75570000')).toEqual({ timeoutMs: 900000, expiresAt: null });
    expect([...dump.sessions.values()].filter((s) => s.timeoutMs === 10000).length).toBe(dump.sessions.size - 3);
    expect(dump.ephemerals.size).toBe(4);
  });

  it('reads both forms of the dead-session capture alike', () => {
    const leader = parseDump(fx.dumpLeaderDeadSession);
    const follower = parseDump(fx.dumpFollowerDeadSession);
    expect([...leader.ephemerals.entries()]).toEqual([...follower.ephemerals.entries()]);
    expect(new Set(leader.sessions.keys())).toEqual(new Set(follower.sessions.keys()));
  });

  it('reads an empty standalone dump', () => {
    expect(parseDump(fx.dumpStandalone)).toEqual({ tracker: 'leader', sessions: new Map(), ephemerals: new Map() });
  });

  it('is empty for refusals and junk', () => {
    expect(parseDump('dump is not executed because it is not in the whitelist.')).toEqual({ tracker: null, sessions: new Map(), ephemerals: new Map() });
    expect(parseDump('Sessions with Ephemerals (1):\n\t/orphan\nnot-a-session:\n')).toMatchObject({ ephemerals: new Map() });
  });
});

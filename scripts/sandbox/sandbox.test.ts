/** The pure parts of the sandbox: port layout, zoo.cfg rendering, srvr parsing, classpath. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findZooKeeperClasspath } from './classpath.js';
import { parseSrvrMode } from './fourLetterWord.js';
import { maxPortOffset, memberPorts } from './ports.js';
import { renderDynamicConfig, renderZooCfg, sandboxServerLine } from './zooCfg.js';
import { superDigest } from './ensemble.js';

describe('memberPorts', () => {
  it('follows 2190+N, 2880+N, 3880+N, 8090+N plus the offset', () => {
    expect(memberPorts(1, 0)).toEqual({ clientPort: 2191, peerPort: 2881, electionPort: 3881, adminPort: 8091 });
    expect(memberPorts(3, 30000)).toEqual({ clientPort: 32193, peerPort: 32883, electionPort: 33883, adminPort: 38093 });
  });
  it('keeps the highest port within 65535', () => {
    expect(memberPorts(3, maxPortOffset(3)).adminPort).toBe(65535);
  });
});

describe('renderZooCfg with dynamic reconfiguration (issue 24)', () => {
  const base = { size: 3, portOffset: 0, dataDir: '/s/member-2/data', tickTime: 2000, overrides: [] };
  it('moves the server lines to the dynamic file and enables reconfig with a super user', () => {
    const digest = superDigest('pw');
    const cfg = renderZooCfg({ ...base, id: 2, dynamic: { file: '/s/member-2/zoo.cfg.dynamic', superDigest: digest } });
    expect(cfg).toContain('\nreconfigEnabled=true\n');
    expect(cfg).toContain('\ndynamicConfigFile=/s/member-2/zoo.cfg.dynamic\n');
    expect(cfg).toContain(`\nDigestAuthenticationProvider.superDigest=${digest}\n`);
    expect(cfg).not.toMatch(/^server\./m);
    // ZooKeeper's own form, computed apart: echo -n super:pw | openssl dgst -sha1 -binary | base64.
    expect(digest).toBe('super:0bX78nEegDzJM3ju0iLBEJdWzjg=');
  });
  it('writes the server lines of the dynamic file', () => {
    expect(sandboxServerLine(4, 100, 'observer')).toBe('server.4=127.0.0.1:2984:3984:observer;127.0.0.1:2294');
    expect(renderDynamicConfig([sandboxServerLine(1, 0)])).toBe('server.1=127.0.0.1:2881:3881:participant;127.0.0.1:2191\n');
    expect(() => renderDynamicConfig(['version=1'])).toThrow('invalid dynamic config line');
  });
});

describe('renderZooCfg', () => {
  const base = { size: 3, portOffset: 0, dataDir: '/s/member-2/data', tickTime: 2000, overrides: [] };

  it('writes a loopback quorum config with the admin server and every 4lw enabled', () => {
    const cfg = renderZooCfg({ ...base, id: 2 });
    expect(cfg).toContain('\ntickTime=2000\n');
    expect(cfg).toContain('\ndataDir=/s/member-2/data\n');
    expect(cfg).toContain('\nstandaloneEnabled=false\n');
    expect(cfg).toContain('\n4lw.commands.whitelist=*\n');
    expect(cfg).toContain('\nadmin.enableServer=true\n');
    expect(cfg).toContain('\nadmin.serverAddress=127.0.0.1\n');
    expect(cfg).toContain('\nadmin.serverPort=8092\n');
    expect(cfg).toContain('\nserver.1=127.0.0.1:2881:3881:participant;127.0.0.1:2191\n');
    expect(cfg).toContain('\nserver.3=127.0.0.1:2883:3883:participant;127.0.0.1:2193\n');
    expect(cfg).not.toContain('server.4');
  });

  it('applies extraConfig, then the member overrides, once per key', () => {
    const cfg = renderZooCfg({
      ...base,
      id: 1,
      overrides: [{ '4lw.commands.whitelist': 'srvr,mntr', reconfigEnabled: 'true' }, { '4lw.commands.whitelist': 'srvr' }],
    });
    expect(cfg.match(/^4lw\.commands\.whitelist=.*$/gm)).toEqual(['4lw.commands.whitelist=srvr']);
    expect(cfg).toContain('\nreconfigEnabled=true\n');
  });

  it('grants sessions up to 15 minutes (ZooKeeper would cap them at 20 ticks), unless overridden', () => {
    expect(renderZooCfg({ ...base, id: 1 })).toContain('\nmaxSessionTimeout=900000\n');
    expect(renderZooCfg({ ...base, id: 1, overrides: [{ maxSessionTimeout: '1000000' }] })).toContain('\nmaxSessionTimeout=1000000\n');
  });

  it('refuses entries that would corrupt the file', () => {
    expect(() => renderZooCfg({ ...base, id: 1, overrides: [{ a: 'x\nserver.9=evil' }] })).toThrow(/invalid zoo.cfg entry/);
    expect(() => renderZooCfg({ ...base, id: 1, overrides: [{ 'a=b': 'x' }] })).toThrow(/invalid zoo.cfg entry/);
  });
});

describe('parseSrvrMode', () => {
  it('reads the Mode line, or null when the member is not serving', () => {
    expect(parseSrvrMode('Zookeeper version: 3.8.0\nZxid: 0x100000002\nMode: follower\nNode count: 5\n')).toBe('follower');
    expect(parseSrvrMode('This ZooKeeper instance is not currently serving requests\n')).toBeNull();
  });
});

describe('findZooKeeperClasspath', () => {
  it('prefers $ZOOKEEPER_HOME/lib jars, with conf/ first for the logging config', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'zkhome-'));
    try {
      fs.mkdirSync(path.join(home, 'lib'));
      fs.mkdirSync(path.join(home, 'conf'));
      fs.writeFileSync(path.join(home, 'lib', 'zookeeper-3.9.3.jar'), '');
      fs.writeFileSync(path.join(home, 'lib', 'netty.jar'), '');
      expect(findZooKeeperClasspath({ ZOOKEEPER_HOME: home })).toBe(
        [path.join(home, 'conf'), path.join(home, 'lib', 'netty.jar'), path.join(home, 'lib', 'zookeeper-3.9.3.jar')].join(':'),
      );
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it.runIf(fs.existsSync('/usr/share/java/zookeeper.jar'))('falls back to the Debian package jars', () => {
    expect(findZooKeeperClasspath({})).toBe('/usr/share/java/zookeeper.jar:/usr/share/java/servlet-api.jar:/usr/share/java/slf4j-simple.jar');
  });
});

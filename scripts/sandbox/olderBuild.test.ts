/**
 * The older-build fetcher without the network: the classpath swap, and every way it declines
 * (not Debian's ZooKeeper, apt-get failing or hanging past its deadline) with a reason a
 * person can act on, plus the cache that makes the second start skip apt altogether. A fake
 * apt-get on PATH stands in for the archive; the real fetch runs in upgradeBuild.integration.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findJava } from './classpath.js';
import { zookeeperJarOf } from './buildVersion.js';
import { fallbackSentence, fetchOlderBuild, OLDER_BUILD, olderBuildClasspath, type OlderBuild } from './olderBuild.js';

const debianZooKeeper = fs.existsSync('/usr/share/java/zookeeper.jar') && findJava() !== null;
const temps: string[] = [];
function temp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-older-build-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A PATH whose apt-get is this shell script, in front of the real tools (dpkg-query, java). */
function fakeAptGet(script: string): NodeJS.ProcessEnv {
  const bin = temp();
  fs.writeFileSync(path.join(bin, 'apt-get'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return { ...process.env, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, ZOOKEEPER_HOME: '' };
}

const build: OlderBuild = {
  label: 'libzookeeper-java 3.8.0-11+deb12u1',
  version: '3.8.0-x, built on 2023-10-30 14:21 UTC',
  jars: ['/c/zookeeper.jar', '/c/zookeeper-jute.jar'],
};

describe('olderBuildClasspath', () => {
  it("puts the older build's jars where zookeeper.jar was and keeps the rest in order", () => {
    const installed = '/usr/share/java/zookeeper.jar:/usr/share/java/servlet-api.jar:/usr/share/java/slf4j-simple.jar';
    expect(olderBuildClasspath(installed, build)).toBe(
      '/c/zookeeper.jar:/c/zookeeper-jute.jar:/usr/share/java/servlet-api.jar:/usr/share/java/slf4j-simple.jar',
    );
  });

  it('refuses a classpath without a zookeeper.jar rather than run the installed build unawares', () => {
    expect(() => olderBuildClasspath('/opt/zk/conf:/opt/zk/lib/zookeeper-3.9.2.jar', build)).toThrow(/no zookeeper.jar/);
  });
});

describe('zookeeperJarOf', () => {
  it("finds Debian's and a release's server jar, not jute's", () => {
    expect(zookeeperJarOf('/usr/share/java/zookeeper.jar:/usr/share/java/servlet-api.jar')).toBe('/usr/share/java/zookeeper.jar');
    expect(zookeeperJarOf('/opt/zk/conf:/opt/zk/lib/zookeeper-jute-3.9.2.jar:/opt/zk/lib/zookeeper-3.9.2.jar')).toBe('/opt/zk/lib/zookeeper-3.9.2.jar');
    expect(zookeeperJarOf('/opt/zk/lib/netty.jar')).toBeNull();
  });
});

describe('fetchOlderBuild declines with a reason', () => {
  it("when the sandbox runs a release from ZOOKEEPER_HOME, not Debian's package", async () => {
    const home = temp();
    fs.mkdirSync(path.join(home, 'lib'));
    fs.writeFileSync(path.join(home, 'lib', 'zookeeper-3.9.2.jar'), '');
    const result = await fetchOlderBuild({ cacheDir: temp(), env: { ...process.env, ZOOKEEPER_HOME: home } });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(`ZOOKEEPER_HOME=${home}`) });
  });

  it('when java is missing', async () => {
    const result = await fetchOlderBuild({ cacheDir: temp(), env: { PATH: temp(), HOME: temp() } });
    expect(result).toEqual({ ok: false, reason: 'java not found' });
  });

  it.skipIf(!debianZooKeeper)("when apt does not know the version, with a hint at apt's sources", async () => {
    const env = fakeAptGet(`echo "E: Version '${OLDER_BUILD.version}' for '${OLDER_BUILD.package}' was not found" >&2; exit 100`);
    const cacheDir = temp();
    const result = await fetchOlderBuild({ cacheDir, env });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain('was not found');
    expect(result.reason).toContain('apt-get update');
    // Nothing half-made is left to be mistaken for a build next time.
    expect(fs.readdirSync(cacheDir)).toEqual([]);
  });

  it.skipIf(!debianZooKeeper)('when the download hangs (no network), at its deadline', async () => {
    // exec: the deadline's SIGKILL then reaches the sleeper itself, leaving no orphan behind.
    const env = fakeAptGet('exec sleep 30');
    const result = await fetchOlderBuild({ cacheDir: temp(), env, downloadTimeoutMs: 500 });
    // Said only when the deadline's kill ended it (the sleep alone lasts 30 s, past the test's timeout).
    expect(result).toEqual({ ok: false, reason: 'apt-get did not finish within 1 s' });
  });

  it.skipIf(!debianZooKeeper)('when the download gives something other than the build', async () => {
    const env = fakeAptGet("echo 'not a deb' > libzookeeper-java_3.8.0-11+deb12u1_all.deb");
    const result = await fetchOlderBuild({ cacheDir: temp(), env });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^dpkg-deb failed: /);
  });

  it('says the upgrade falls back to a plain rolling restart', () => {
    expect(fallbackSentence('apt-get not found')).toBe(
      'the older ZooKeeper build (libzookeeper-java 3.8.0-11+deb12u1) cannot be used: apt-get not found. Falling back to a plain rolling restart on the installed build (no build change).',
    );
  });
});

describe('fetchOlderBuild reuses its cache', () => {
  it.skipIf(!debianZooKeeper)('and never calls apt-get once the build is unpacked', async () => {
    const cacheDir = temp();
    const dir = path.join(cacheDir, `${OLDER_BUILD.package}_${OLDER_BUILD.version}`);
    fs.mkdirSync(path.join(dir, 'usr/share/java'), { recursive: true });
    for (const jar of ['zookeeper.jar', 'zookeeper-jute.jar']) fs.writeFileSync(path.join(dir, 'usr/share/java', jar), '');
    fs.writeFileSync(path.join(dir, 'build.json'), JSON.stringify({ version: '3.8.0-x, built on 2023-10-30 14:21 UTC' }));
    const env = fakeAptGet('echo "apt-get must not run" >&2; exit 1');
    const result = await fetchOlderBuild({ cacheDir, env });
    expect(result).toEqual({
      ok: true,
      fromCache: true,
      build: {
        label: build.label,
        version: '3.8.0-x, built on 2023-10-30 14:21 UTC',
        jars: [path.join(dir, 'usr/share/java/zookeeper.jar'), path.join(dir, 'usr/share/java/zookeeper-jute.jar')],
      },
    });
  });

  it.skipIf(!debianZooKeeper)('but not a directory without its marker (an interrupted unpack)', async () => {
    const cacheDir = temp();
    fs.mkdirSync(path.join(cacheDir, `${OLDER_BUILD.package}_${OLDER_BUILD.version}`, 'usr/share/java'), { recursive: true });
    const result = await fetchOlderBuild({ cacheDir, env: fakeAptGet('echo "E: offline" >&2; exit 100') });
    expect(result).toEqual({ ok: false, reason: 'apt-get failed: E: offline' });
  });
});

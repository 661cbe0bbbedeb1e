/**
 * npm test's check for the older ZooKeeper build that the real build-change upgrade test needs
 * (server/test/upgradeBuild.integration.test.ts). That test skips, saying why, when the build
 * cannot be had; npm test must not let it skip where the build could be had. So:
 *  - already in the cache: nothing to fetch, and the test is required (it reads the cache);
 *  - Debian's archive answers (one HEAD request, 4 s at most): fetched now, and required;
 *  - the archive does not answer (no network, as inside a network namespace): the test may
 *    skip, and npm test's summary names the skip.
 * Prints what it found. Exit 0: required (KEEPER_REQUIRE_OLDER_BUILD=1); 3: not reachable,
 * the skip is allowed; 1: reachable but the fetch failed (npm test stops there, with the reason).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cachedOlderBuild, fallbackSentence, fetchOlderBuild, OLDER_BUILD } from './sandbox/index.js';
import { runWithDeadline } from './sandbox/runWithDeadline.js';

const PROBE_TIMEOUT_MS = 4_000;
const say = (line: string) => console.log(`older build: ${line}`);

/** The .deb's own URI when apt knows the version, else the first archive in the apt sources. */
async function archiveUri(): Promise<string | null> {
  try {
    const { stdout } = await runWithDeadline('apt-get', ['download', '--print-uris', `${OLDER_BUILD.package}=${OLDER_BUILD.version}`], { timeoutMs: 10_000 });
    const uri = /^'([^']+)'/m.exec(stdout)?.[1];
    if (uri) return uri;
  } catch {
    // apt's lists do not name that version (never updated): the sources still say where the archive is.
  }
  const sources = ['/etc/apt/sources.list', ...listDir('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`)];
  for (const file of sources) {
    const text = readText(file);
    const uri = /^\s*(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(https?:\/\/\S+)/m.exec(text)?.[1];
    if (uri) return uri;
  }
  return null;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Whether an HTTP request to the archive gets any answer within the deadline, and in how long. */
async function reachable(uri: string): Promise<{ ok: boolean; detail: string }> {
  const began = Date.now();
  try {
    const res = await fetch(uri, { method: 'HEAD', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { ok: true, detail: `${new URL(uri).host} answered ${res.status} in ${Date.now() - began} ms` };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, detail: `${new URL(uri).host}: ${cause?.code ?? cause?.message ?? (err as Error).message} after ${Date.now() - began} ms` };
  }
}

const label = `${OLDER_BUILD.package} ${OLDER_BUILD.version}`;
if (cachedOlderBuild()) {
  say(`${label} is in the cache: the build-change test is required (KEEPER_REQUIRE_OLDER_BUILD=1)`);
  process.exit(0);
}
const uri = await archiveUri();
const probe = uri ? await reachable(uri) : { ok: false, detail: 'no apt archive configured' };
if (!probe.ok) {
  say(`Debian's archive is not reachable (${probe.detail}): the build-change test may skip, and the summary will name it`);
  process.exit(3);
}
let fetched = await fetchOlderBuild();
if (!fetched.ok && /not found|Unable to locate/i.test(fetched.reason) && process.getuid?.() === 0) {
  // apt's lists predate the version (a machine whose packages were all there, so setup never updated them).
  say(`apt does not know ${label} yet: apt-get update`);
  await runWithDeadline('apt-get', ['update', '-qq'], { timeoutMs: 180_000 }).catch((err: Error) => say(`apt-get update failed: ${err.message}`));
  fetched = await fetchOlderBuild();
}
if (!fetched.ok) {
  say(`Debian's archive is reachable (${probe.detail}) but the fetch failed: ${fallbackSentence(fetched.reason)}`);
  process.exit(1);
}
say(`Debian's archive is reachable (${probe.detail}); ${label} fetched: the build-change test is required (KEEPER_REQUIRE_OLDER_BUILD=1)`);

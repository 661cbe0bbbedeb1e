/**
 * A `replicas.identities` change (docs/operating/replicas.md, "Identity and ACL"): the first replica with
 * the new list sets the new ACL on every znode under the root. How long that walk takes over
 * 10,000 sign-in records (the default `maxSessions`), against a raw node-zookeeper-client doing
 * the same walk (getChildren, getACL, setACL at the read aversion, 16 at a time) over the same
 * tree, in alternating rounds: Keeper A→B, raw B→A, ... On a 3-member TLS-only ensemble that
 * requires SASL DIGEST-MD5, as the integration test's.
 *
 *   npx tsx bench/identitiesChange.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { pino } from 'pino';
import { SandboxEnsemble, fourLetterWord, keeperSecureSettings } from '../scripts/sandbox/index.js';
import type { EnsembleConfig } from '../server/src/config/types.js';
import { replicaAcl } from '../server/src/replicas/replicaAcl.js';
import { Replicas } from '../server/src/replicas/replicas.js';
import type { AclEntry } from '../server/src/zk/mutations.js';
import { connectSecure } from '../server/test/support/secureClient.js';
import { PORT_OFFSETS } from './support/benchEnv.js';
import { runBench } from './support/lifecycle.js';

const RECORDS = 10_000;
const ROUNDS = 3;
const ROOT = '/keeper/replicas';
const SECRET = 'bench-identities-secret-0123456789-abcdefgh';
const LIST_A = ['x509:CN=keeper'];
const LIST_B = ['x509:CN=keeper', 'sasl:keeper'];
const BATCH = 16;
const log = pino({ level: process.env.KEEPER_BENCH_LOG ?? 'silent' });

type Raw = Awaited<ReturnType<typeof connectSecure>>;

function call<T>(run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error as Error) : resolve(value as T))));
}

const toZk = (acl: AclEntry[]) => acl.map((a) => new zookeeper.ACL(a.permissions, new zookeeper.Id(a.scheme, a.id)));
const keyOf = (acl: zookeeper.ACL[]) =>
  acl
    .map((a) => `${a.id.scheme}:${a.id.id}:${(a as unknown as { permission: number }).permission}`)
    .sort()
    .join();
const wantKey = (acl: AclEntry[]) =>
  acl
    .map((a) => `${a.scheme}:${a.id}:${a.permissions}`)
    .sort()
    .join();

/** The raw client's walk: level by level, 16 at a time, the root last; returns the znodes changed. */
async function rawWalk(raw: Raw, acl: AclEntry[]): Promise<number> {
  const zkAcl = toZk(acl);
  const want = wantKey(acl);
  let changed = 0;
  let level = [ROOT];
  const setOne = async (path: string) => {
    const [current, stat] = await call<[zookeeper.ACL[], zookeeper.Stat]>((cb) => raw.client.getACL(path, (e, a, s) => cb(e, [a, s])));
    if (keyOf(current) === want) return;
    await call((cb) => raw.client.setACL(path, zkAcl, stat.aversion, (e) => cb(e)));
    changed++;
  };
  while (level.length > 0) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += BATCH)
      await Promise.all(
        level.slice(i, i + BATCH).map(async (path) => {
          for (const child of await call<string[]>((cb) => raw.client.getChildren(path, (e, c) => cb(e, c)))) next.push(`${path}/${child}`);
          if (path !== ROOT) await setOne(path);
        }),
      );
    level = next;
  }
  await setOne(ROOT);
  return changed;
}

/** Every znode under the root and whether each has `acl` (read by the raw client). */
async function countWith(raw: Raw, acl: AclEntry[]): Promise<{ total: number; matching: number }> {
  const want = wantKey(acl);
  let total = 0;
  let matching = 0;
  let level = [ROOT];
  while (level.length > 0) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 64)
      await Promise.all(
        level.slice(i, i + 64).map(async (path) => {
          const [current] = await call<[zookeeper.ACL[]]>((cb) => raw.client.getACL(path, (e, a) => cb(e, [a])));
          total++;
          if (keyOf(current) === want) matching++;
          for (const child of await call<string[]>((cb) => raw.client.getChildren(path, (e, c) => cb(e, c)))) next.push(`${path}/${child}`);
        }),
      );
    level = next;
  }
  return { total, matching };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await runBench('identitiesChange', { timeoutMs: 600_000 }, async (scope) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-bench-identities-'));
  scope.defer('remove state dir', () => rmSync(stateDir, { recursive: true, force: true }));
  scope.log(`starting a 3-member TLS-only, SASL-required ensemble (port offset ${PORT_OFFSETS.replicaIdentitiesBench})`);
  const ensemble = await SandboxEnsemble.start({
    stateDir,
    portOffset: PORT_OFFSETS.replicaIdentitiesBench,
    tickTime: 2000,
    secure: { saslUsers: { keeper: 'bench-keeper-password' } },
  });
  scope.defer('close ensemble', () => ensemble.close());
  const home: EnsembleConfig = { name: 'home', connectionString: ensemble.connectionString, ...keeperSecureSettings(ensemble.security!) };
  const replicaWith = (identities: string[]) => {
    const r = new Replicas({ stateEnsemble: 'home', root: ROOT, secret: SECRET, sharedPolling: false, identities }, home, log, { requestDeadlineMs: 30_000 });
    r.gateway.start();
    scope.defer('close replica', () => r.close());
    return r;
  };
  const a = replicaWith(LIST_A);
  const b = replicaWith(LIST_B);
  const raw = await connectSecure(home);
  scope.defer('close raw client', () => raw.close());
  raw.client.addAuthInfo('digest', Buffer.from(`keeper:${SECRET}`));

  scope.log(`making the root and ${RECORDS} records with list A`);
  await a.store.ensureRoot();
  await a.store.createIfMissing(a.store.path('sessions'), {});
  for (let bucket = 0; bucket < 256; bucket += BATCH)
    await Promise.all(
      Array.from({ length: BATCH }, (_, i) => a.store.createIfMissing(a.store.path('sessions', (bucket + i).toString(16).padStart(2, '0')), {})),
    );
  for (let n = 0; n < RECORDS; n += 64)
    await Promise.all(
      Array.from({ length: Math.min(64, RECORDS - n) }, (_, i) => {
        const id = (n + i).toString(16).padStart(8, '0');
        return a.store.create(a.store.path('sessions', id.slice(-2), id), { name: 'bench', role: 'viewer', expiresAt: Date.now() + 3_600_000 });
      }),
    );
  const before = await countWith(raw, replicaAcl(SECRET, LIST_A));
  scope.log(`${before.total} znodes under the root, ${before.matching} with list A`);

  const keeperMs: number[] = [];
  const rawMs: number[] = [];
  const notes: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let began = performance.now();
    await b.store.ensureRoot();
    keeperMs.push(performance.now() - began);
    const afterKeeper = await countWith(raw, replicaAcl(SECRET, LIST_B));
    if (afterKeeper.matching !== afterKeeper.total)
      notes.push(`round ${round + 1}: Keeper left ${afterKeeper.total - afterKeeper.matching} znodes with the old ACL`);
    began = performance.now();
    const changed = await rawWalk(raw, replicaAcl(SECRET, LIST_A));
    rawMs.push(performance.now() - began);
    scope.log(`round ${round + 1}: Keeper A→B ${keeperMs.at(-1)!.toFixed(0)} ms, raw B→A ${rawMs.at(-1)!.toFixed(0)} ms (${changed} changed)`);
  }
  const srvr = await fourLetterWord(ensemble.members[0]!.host, ensemble.members[0]!.clientPort, 'srvr', 5_000, ensemble.security!.pem).catch(() => '');
  const zookeeperVersion = /^Zookeeper version: ([^-,\s]+)/m.exec(srvr)?.[1] ?? 'unknown';
  const ratio = median(keeperMs) / median(rawMs);
  return {
    bench: 'identitiesChange',
    title: `replicas.identities changed: the ACL set on every znode under the root (${before.total} znodes)`,
    lines: [
      `Keeper (ReplicaStore.ensureRoot's walk), ${ROUNDS} rounds: ${keeperMs.map((x) => x.toFixed(0)).join(', ')} ms; median ${median(keeperMs).toFixed(0)} ms (${((before.total / median(keeperMs)) * 1000).toFixed(0)} znodes/s)`,
      `raw node-zookeeper-client, same walk: ${rawMs.map((x) => x.toFixed(0)).join(', ')} ms; median ${median(rawMs).toFixed(0)} ms`,
      `ratio Keeper / raw: ${ratio.toFixed(2)}`,
    ],
    rows: [
      {
        measure: `identities change over ${before.total} znodes`,
        keeper: `${median(keeperMs).toFixed(0)} ms`,
        baseline: `${median(rawMs).toFixed(0)} ms`,
        ratio,
        target: '≤ 1.5x',
        withinTarget: ratio <= 1.5,
      },
    ],
    notes,
    zookeeperVersion,
  };
});

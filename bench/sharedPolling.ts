/**
 * The members' 4lw load with 1 and with 3 Keeper replicas, with and without
 * `"replicas": {"sharedPolling": true}` (docs/operating/replicas.md), over the same window in one run:
 *  - A: 1 replica, sharedPolling on (it leads: it polls and publishes);
 *  - B: 3 replicas, sharedPolling on (one polls for all);
 *  - C: 3 replicas, sharedPolling off (each polls: today's cost of N replicas).
 * In each, every replica has a sessions view open (a refresh every 10 s, the rate limit's window,
 * the replicas a third of it apart) and a Locks view open (read every 5 s: its wchp + cons
 * gathering runs every 10 s while someone looks), and the members are polled every 2 s over 4lw (no AdminServer
 * ports are configured, so every request is a word the members count).
 *
 * Counted twice:
 *  - by Keeper: every 4lw and AdminServer request all replicas' transports sent (exact);
 *  - by the members: srvr `Received:` deltas, minus this bench's own srvr readings. That count
 *    also holds every ZooKeeper client packet: each replica's console and state sessions (pings),
 *    and with sharedPolling the results written and read in the home ensemble (here the same
 *    ensemble), so it does not stay flat with 3 replicas; the 4lw count is the one that must.
 *
 *   npx tsx bench/sharedPolling.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SandboxEnsemble, fourLetterWord } from '../scripts/sandbox/index.js';
import { startKeeper, type RunningKeeper } from '../server/src/app.js';
import { PORT_OFFSETS } from './support/benchEnv.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';
import { memberPackets } from './support/memberCounters.js';
import { openRaw } from './support/rawZk.js';

const WINDOW_MS = 40_000;
const POLL_MS = 2_000;
const SESSIONS_VIEW_MS = 10_000;
const LOCKS_VIEW_MS = 5_000;
const LOCK_GATHER_MS = 10_000;
const ENSEMBLE = 'bench';
const SECRET = 'bench-cluster-secret-0123456789-abcdefgh';
const TOKEN = 'bench-admin-token-0123456789';

interface Phase {
  label: string;
  replicas: number;
  sharedPolling: boolean;
}

interface PhaseResult extends Phase {
  seconds: number;
  /** 4lw + AdminServer requests all replicas sent, by purpose. */
  requests: Record<string, number>;
  total: number;
  /** Replicas that sent any. */
  senders: number;
  memberReceived: number;
}

const PHASES: Phase[] = [
  { label: 'A: 1 replica, sharedPolling', replicas: 1, sharedPolling: true },
  { label: 'B: 3 replicas, sharedPolling', replicas: 3, sharedPolling: true },
  { label: 'C: 3 replicas, each polling', replicas: 3, sharedPolling: false },
];

const fmt = (n: number, digits = 2) => n.toFixed(digits);

function requestsOf(keeper: RunningKeeper): Record<string, number> {
  const out: Record<string, number> = {};
  for (const count of Object.values(keeper.ensembles.get(ENSEMBLE).monitor.counters.snapshot())) {
    for (const [command, n] of Object.entries(count.byCommand)) if (!command.startsWith('zk ')) out[command] = (out[command] ?? 0) + n;
  }
  return out;
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

async function runPhase(scope: Scope, ensemble: SandboxEnsemble, phase: Phase, overhead: number): Promise<PhaseResult> {
  scope.log(`${phase.label}: starting`);
  const stateDirs: string[] = [];
  const keepers: RunningKeeper[] = [];
  try {
    for (let i = 0; i < phase.replicas; i++) {
      const stateDir = mkdtempSync(join(tmpdir(), 'keeper-bench-polling-'));
      stateDirs.push(stateDir);
      keepers.push(
        await startKeeper(
          {
            host: '127.0.0.1',
            port: 0,
            ensembles: [{ name: ENSEMBLE, connectionString: ensemble.connectionString, locks: { roots: ['/locks'], gatherIntervalMs: LOCK_GATHER_MS } }],
            auth: { stateDir, adminToken: TOKEN },
            replicas: { stateEnsemble: ENSEMBLE, root: '/keeper/replicas', secret: SECRET, sharedPolling: phase.sharedPolling },
          },
          { logger: pino({ level: process.env.KEEPER_BENCH_LOG ?? 'silent' }), ensembleDefaults: { pollIntervalMs: POLL_MS } },
        ),
      );
    }
    const pollerOf = (k: RunningKeeper) => k.ensembles.get(ENSEMBLE).monitor.poller;
    // Settled: the replicas that poll have polled twice, the others have shown two published rounds.
    await until(() => keepers.every((k) => pollerOf(k).rounds >= 2 || pollerOf(k).adopted >= 2), 'every replica to show two rounds', {
      timeoutMs: 60_000,
      signal: scope.signal,
    });
    const view = (k: RunningKeeper, i: number, what: string, path: string, everyMs: number) => {
      let stop = false;
      const run = (async () => {
        await sleep((i * everyMs) / phase.replicas, scope.signal);
        while (!stop) {
          const res = await fetch(`${k.url}/api/ensembles/${ENSEMBLE}/${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
          if (!res.ok) scope.log(`${what}: ${res.status} ${await res.text()}`);
          await sleep(everyMs, scope.signal);
        }
      })().catch(() => undefined);
      return () => {
        stop = true;
        return run;
      };
    };
    const views = keepers.flatMap((k, i) => [
      view(k, i, 'sessions view', 'sessions?refresh=true', SESSIONS_VIEW_MS),
      view(k, i, 'locks view', 'locks?path=/locks', LOCKS_VIEW_MS),
    ]);
    const before = keepers.map(requestsOf);
    const packets0 = await memberPackets(ensemble.members);
    const started = performance.now();
    scope.log(`${phase.label}: measuring for ${WINDOW_MS / 1000} s`);
    await sleep(WINDOW_MS, scope.signal);
    const seconds = (performance.now() - started) / 1000;
    const packets1 = await memberPackets(ensemble.members);
    const after = keepers.map(requestsOf);
    for (const stop of views) void stop();
    const requests: Record<string, number> = {};
    let senders = 0;
    after.forEach((counts, i) => {
      let sent = 0;
      for (const [command, n] of Object.entries(counts)) {
        const delta = n - (before[i]![command] ?? 0);
        requests[command] = (requests[command] ?? 0) + delta;
        sent += delta;
      }
      if (sent > 0) senders++;
    });
    let memberReceived = -overhead;
    for (const [address, c] of packets1) memberReceived += c.received - (packets0.get(address)?.received ?? 0);
    return { ...phase, seconds, requests, total: sum(requests), senders, memberReceived };
  } finally {
    await Promise.all(keepers.map((k) => k.close()));
    for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
  }
}

await runBench('sharedPolling', { timeoutMs: 600_000 }, async (scope) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-bench-'));
  scope.defer('remove state dir', () => rmSync(stateDir, { recursive: true, force: true }));
  scope.log(`starting a 3-member ensemble (port offset ${PORT_OFFSETS.sharedPollingBench})`);
  const ensemble = await SandboxEnsemble.start({ stateDir, portOffset: PORT_OFFSETS.sharedPollingBench, tickTime: 2000 });
  scope.defer('close ensemble', () => ensemble.close());
  const first = ensemble.members[0]!;
  const srvr = await fourLetterWord(first.host, first.clientPort, 'srvr', 5_000);
  const zookeeperVersion = /^Zookeeper version: ([^-,\s]+)/m.exec(srvr)?.[1] ?? 'unknown';
  // What one srvr reading of every member adds to their Received (two readings per phase).
  const a = await memberPackets(ensemble.members);
  const b = await memberPackets(ensemble.members);
  const overhead = 2 * [...b].reduce((n, [address, c]) => n + c.received - (a.get(address)?.received ?? 0), 0);

  // The lock root the Locks views read (empty: the gathering's cost does not depend on it).
  const raw = await openRaw(scope, ensemble.connectionString, 'lock root');
  await raw.mkdirp('/locks');
  const results: PhaseResult[] = [];
  for (const phase of PHASES) results.push(await runPhase(scope, ensemble, phase, overhead));
  const [one, shared, each] = results as [PhaseResult, PhaseResult, PhaseResult];
  const rate = (p: PhaseResult) => p.total / p.seconds;
  const memberRate = (p: PhaseResult) => p.memberReceived / p.seconds;
  const sharedRatio = rate(shared) / rate(one);
  const eachRatio = rate(each) / rate(one);
  const lines = results.map(
    (p) =>
      `${p.label}: ${fmt(p.seconds, 1)} s, ${p.total} 4lw requests (${fmt(rate(p))}/s) from ${p.senders} of ${p.replicas} replica(s) [${Object.entries(
        p.requests,
      )
        .filter(([, n]) => n > 0)
        .map(([c, n]) => `${c.replace('4lw ', '')} ${n}`)
        .join(', ')}]; members received ${p.memberReceived} packets in all (${fmt(memberRate(p))}/s)`,
  );
  lines.push(
    `ratio against 1 replica, 4lw requests: ${fmt(sharedRatio, 3)} with sharedPolling, ${fmt(eachRatio, 3)} without; members' packets (all clients): ${fmt(memberRate(shared) / memberRate(one), 3)} with, ${fmt(memberRate(each) / memberRate(one), 3)} without`,
  );
  const notes: string[] = [];
  if (shared.senders !== 1) notes.push(`with sharedPolling ${shared.senders} replicas sent 4lw in the window (1 expected)`);
  return {
    bench: 'sharedPolling',
    title: `sharedPolling: the members' 4lw load with 3 replicas vs 1 (poll every ${POLL_MS / 1000} s, a sessions view and a Locks view open on each replica)`,
    lines,
    rows: [
      {
        measure: '4lw requests/s to the members, 3 replicas with sharedPolling vs 1 replica',
        keeper: `${fmt(rate(shared))}/s`,
        baseline: `${fmt(rate(one))}/s`,
        ratio: sharedRatio,
        target: '≈ 1',
        withinTarget: Math.abs(sharedRatio - 1) <= 0.1,
      },
      {
        measure: '4lw requests/s to the members, 3 replicas each polling vs 1 replica',
        keeper: `${fmt(rate(each))}/s`,
        baseline: `${fmt(rate(one))}/s`,
        ratio: eachRatio,
        target: '≈ 3 (what sharedPolling saves)',
        withinTarget: Math.abs(eachRatio - 3) <= 0.3,
      },
    ],
    notes,
    zookeeperVersion,
  };
});

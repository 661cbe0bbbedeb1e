/**
 * How long a browser is not live when its Keeper goes away (docs/operating/replicas.md, issue 21 item 7):
 *  - replicas: two replica processes behind nginx (docs/nginx/keeper.conf, round robin) on one
 *    home ensemble; the replica holding the client's socket is killed (SIGKILL) and started again
 *    (so the next round has two again); the client comes back through nginx to the other one;
 *  - reference: one Keeper alone (no replicas) behind the same nginx, killed (SIGKILL) and started
 *    again at once; the client comes back to it when it serves again.
 * The client is the browser's socket client in miniature (`ws`): the page's own reconnect
 * schedule (web/src/socket/backoff.ts: 0.5 s, doubling to 2 s, ±20 %), hello, a subscription to
 * one znode; "live again" is the first state of that znode over the new socket. Recovery is from
 * the socket's close to that moment. Signed in once per side: a reconnect that needed a sign-in
 * would fail the run.
 *
 *   npx tsx bench/replicaFailover.ts          (KEEPER_BENCH_KILLS=n: kills per side, default 7)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { PROTOCOL_VERSION } from '../shared/src/index.js';
import { SandboxEnsemble, fourLetterWord } from '../scripts/sandbox/index.js';
import { launchKeeper, type KeeperProcess } from '../scripts/lib/keeperProcess.js';
import { startNginx, type RunningNginx } from '../scripts/lib/nginx.js';
import { KEEPER_PORTS } from '../scripts/sandbox/portOffsets.js';
import { kazoo } from '../scripts/lib/kazoo/index.js';
import { reconnectDelay } from '../web/src/socket/backoff.js';
import { PORT_OFFSETS } from './support/benchEnv.js';
import { runBench, sleep, until, type Scope } from './support/lifecycle.js';

const KILLS = Number(process.env.KEEPER_BENCH_KILLS ?? 7);
const ADMIN = 'bench-failover-admin-token-0123456789';
const SECRET = 'bench-failover-cluster-secret-0123456789-abcdef';
const SESSION_TIMEOUT_MS = 4_000;
const NODE = '/bench-failover';
const NGINX_PORT = KEEPER_PORTS.benchReplicasNginx;
const NGINX = `https://127.0.0.1:${NGINX_PORT}`;

/** The page's socket client in miniature: reconnects on its own, with the page's schedule and the same cookie. */
class FollowingClient {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private stopped = false;
  private closedAt: number | null = null;
  /** Each recovery, close → live again (ms). */
  readonly recoveries: number[] = [];
  live = false;
  refused: string | null = null;

  constructor(
    private readonly ca: Buffer,
    private readonly cookie: string,
  ) {}

  start(): void {
    const socket = new WebSocket(`wss://127.0.0.1:${NGINX_PORT}/ws`, { ca: this.ca, headers: { cookie: this.cookie, origin: NGINX } });
    this.socket = socket;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION })));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; events?: { topic: string; event: { kind: string } }[] };
      if (message.type === 'welcome') socket.send(JSON.stringify({ type: 'subscribe', topic: 'znode', ensemble: 'home', params: { path: NODE }, id: 's' }));
      if (message.type === 'batch' && !this.live && message.events?.some((e) => e.topic === 'znode' && e.event.kind === 'state')) {
        this.live = true;
        this.attempt = 0;
        if (this.closedAt !== null) this.recoveries.push(Date.now() - this.closedAt);
        this.closedAt = null;
      }
    });
    socket.on('unexpected-response', (_req, res) => {
      // Refused at the upgrade: 401 would be a lost sign-in (the run fails), 502/503 a replica not there yet.
      if (res.statusCode === 401 || res.statusCode === 403) this.refused = `the socket was refused ${res.statusCode}: signed out`;
      socket.terminate();
    });
    socket.on('error', () => undefined);
    socket.on('close', (code) => {
      if (code === 4003) this.refused = 'the socket was closed 4003: access ended';
      if (this.live) this.closedAt = Date.now();
      this.live = false;
      if (this.stopped || this.refused) return;
      setTimeout(() => this.start(), reconnectDelay(this.attempt++, true, Math.random()));
    });
  }

  stop(): void {
    this.stopped = true;
    this.socket?.terminate();
  }
}

async function signIn(viaProxy: RunningNginx['viaProxy']): Promise<string> {
  const login = await viaProxy('POST', '/api/login', { origin: NGINX }, { token: ADMIN });
  if (login.status !== 200) throw new Error(`sign-in through nginx: ${login.status} ${JSON.stringify(login.body)}`);
  return ([] as string[])
    .concat(login.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('keeper_session='))!
    .split(';')[0]!;
}

async function socketsOn(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^keeper_browsers_connected (\d+)/m.exec(text)?.[1] ?? 0);
}

async function registered(url: string): Promise<boolean> {
  const res = await fetch(`${url}/api/replicas`, { headers: { Authorization: `Bearer ${ADMIN}` } }).catch(() => null);
  return res?.status === 200;
}

const median = (xs: number[]) => percentile(xs, 0.5);
function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
}

async function measureSide(scope: Scope, label: string, start: (port: number) => Promise<KeeperProcess>, ports: number[], dir: string): Promise<number[]> {
  scope.log(`${label}: starting ${ports.length} Keeper(s) and nginx`);
  const keepers = new Map<number, KeeperProcess>();
  scope.defer(`${label}: stop Keepers`, () => Promise.all([...keepers.values()].map((k) => k.stop('SIGTERM'))));
  await Promise.all(ports.map(async (p) => keepers.set(p, await start(p))));
  const nginx = await startNginx(
    dir,
    NGINX_PORT,
    ports.map((p) => `127.0.0.1:${p}`),
  );
  let client: FollowingClient | null = null;
  try {
    const cookie = await signIn(nginx.viaProxy);
    client = new FollowingClient(nginx.ca, cookie);
    client.start();
    await until(() => client!.live, `${label}: the client live`, { timeoutMs: 20_000, signal: scope.signal });
    for (let round = 0; round < KILLS; round++) {
      const counts = await Promise.all(ports.map((p) => socketsOn(`http://127.0.0.1:${p}`)));
      const port = ports[counts.indexOf(1)] ?? ports[0]!;
      await keepers.get(port)!.stop('SIGKILL');
      await until(() => !client!.live, `${label}: the socket closed`, { timeoutMs: 10_000, signal: scope.signal });
      // Started again at once: the reference's only way back; for replicas, the next round's second replica.
      keepers.set(port, await start(port));
      await until(() => client!.live || client!.refused !== null, `${label}: live again`, { timeoutMs: 60_000, signal: scope.signal });
      if (client.refused) throw new Error(`${label}: ${client.refused}`);
      scope.log(`${label}: kill ${round + 1}: live again after ${client.recoveries.at(-1)} ms`);
      if (ports.length > 1) {
        const deadline = Date.now() + 30_000;
        while (!(await registered(`http://127.0.0.1:${port}`))) {
          if (Date.now() > deadline) throw new Error(`${label}: the restarted replica did not register within 30 s`);
          await sleep(200, scope.signal);
        }
      }
      await sleep(500, scope.signal);
    }
    return client.recoveries;
  } finally {
    client?.stop();
    nginx.stop();
    await Promise.all([...keepers.values()].map((k) => k.stop('SIGTERM')));
    keepers.clear();
  }
}

await runBench('replicaFailover', { timeoutMs: 900_000 }, async (scope) => {
  const dir = mkdtempSync(join(tmpdir(), 'keeper-bench-failover-'));
  scope.defer('remove state dir', () => rmSync(dir, { recursive: true, force: true }));
  scope.log(`starting a 3-member ensemble (port offset ${PORT_OFFSETS.replicaFailoverBench})`);
  const ensemble = await SandboxEnsemble.start({ stateDir: join(dir, 'zk'), portOffset: PORT_OFFSETS.replicaFailoverBench });
  scope.defer('close ensemble', () => ensemble.close());
  const first = ensemble.members[0]!;
  const srvr = await fourLetterWord(first.host, first.clientPort, 'srvr', 5_000);
  const zookeeperVersion = /^Zookeeper version: ([^-,\s]+)/m.exec(srvr)?.[1] ?? 'unknown';

  const home = { name: 'home', connectionString: ensemble.connectionString, sessionTimeoutMs: SESSION_TIMEOUT_MS };
  const replicasConfig = join(dir, 'replicas.json');
  writeFileSync(replicasConfig, JSON.stringify({ ensembles: [home], replicas: { stateEnsemble: 'home', root: '/keeper/replicas' } }));
  const aloneConfig = join(dir, 'alone.json');
  writeFileSync(aloneConfig, JSON.stringify({ ensembles: [home] }));
  const env = { KEEPER_ADMIN_TOKEN: ADMIN, KEEPER_CLUSTER_SECRET: SECRET, KEEPER_TRUST_PROXY: 'loopback', KEEPER_LOG_LEVEL: 'warn' };
  const launch = (config: string) => (port: number) => launchKeeper(['--config', config, '--port', String(port), '--data-dir', join(dir, `data-${port}`)], env);
  await kazoo(ensemble.connectionString, [{ op: 'create', path: NODE, data: 'followed' }]);

  const replicas = await measureSide(scope, 'replicas', launch(replicasConfig), [KEEPER_PORTS.benchReplicaA, KEEPER_PORTS.benchReplicaB], dir);
  const alone = await measureSide(scope, 'single Keeper', launch(aloneConfig), [KEEPER_PORTS.benchReplicaA], dir);

  const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const ratio = median(replicas) / median(alone);
  const lines = [
    `replicas (2 behind nginx, the socket's replica SIGKILLed): ${replicas.length} kills, recovery median ${fmt(median(replicas))}, p95 ${fmt(percentile(replicas, 0.95))} [${replicas.join(', ')} ms]`,
    `single Keeper (behind the same nginx, SIGKILLed and started again at once): ${alone.length} kills, recovery median ${fmt(median(alone))}, p95 ${fmt(percentile(alone, 0.95))} [${alone.join(', ')} ms]`,
    `ratio of medians, replicas / single Keeper: ${ratio.toFixed(2)} (p95: ${(percentile(replicas, 0.95) / percentile(alone, 0.95)).toFixed(2)})`,
    "recovery = the socket closed → the followed znode's state over the new socket; the client keeps the page's reconnect schedule (0.5 s, doubling to 2 s, ±20 %) and its one sign-in",
  ];
  return {
    bench: 'replicaFailover',
    title: 'A browser socket client when its Keeper is killed: back through the other replica vs a single Keeper restarted',
    lines,
    rows: [
      {
        measure: 'recovery when the socket’s Keeper is SIGKILLed (median), 2 replicas vs a single Keeper restarted',
        keeper: fmt(median(replicas)),
        baseline: fmt(median(alone)),
        ratio,
        target: '< 0.5 (a reconnect, not a restart)',
        withinTarget: ratio < 0.5,
      },
    ],
    notes: [],
    zookeeperVersion,
  };
});

/**
 * A bench's own world: a 3-member sandbox ensemble (state in the OS temp dir) and a Keeper
 * serving it as ensemble "bench", both torn down by the scope's cleanup stack. With `secure`,
 * the ensemble is TLS-only and SASL-required (the secured integration tests' sandbox) and
 * Keeper is configured for it as `npm start -- --secure` configures it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SandboxEnsemble, fourLetterWord, keeperSecureSettings, type KeeperSecureSettings, type SandboxSecureOptions } from '../../scripts/sandbox/index.js';
import { startKeeper, type RunningKeeper, type StartExtras } from '../../server/src/app.js';
import type { ZkGateway } from '../../server/src/zk/gateway.js';
import type { KeeperOptions } from '../../server/src/config/types.js';
import { until, type Scope } from './lifecycle.js';

export const ENSEMBLE = 'bench';

export interface BenchEnv {
  ensemble: SandboxEnsemble;
  keeper: RunningKeeper;
  gateway: ZkGateway;
  /** host:port of the member Keeper's session is on (raw baselines connect there too). */
  keeperMember: string;
  /** As srvr tells it, e.g. "3.8.0". */
  zookeeperVersion: string;
  /** Keeper's TLS files and SASL login on a secure ensemble (raw baselines use them too), else null. */
  security: KeeperSecureSettings | null;
}

/** Each bench's port offset: one place for every layout, so none collides (see portOffsets.ts). */
export { PORT_OFFSETS } from '../../scripts/sandbox/portOffsets.js';

/**
 * `extras`: more of Keeper's start options, given the ensemble (bench/upgrades.ts wires its
 * restarter); `options`: more of its configuration (bench/scale.ts signs people in with tokens);
 * `sandbox.secure`: a TLS-only ensemble, SASL-required when it names users (bench/secure.ts);
 * `sandbox.reconfig`: reconfigEnabled with ZooKeeper's super user, given to Keeper as the
 * ensemble's `reconfigAuth` (bench/reconfig.ts).
 */
export async function startBenchEnv(
  scope: Scope,
  portOffset: number,
  extras?: (ensemble: SandboxEnsemble) => StartExtras,
  options: Partial<KeeperOptions> = {},
  sandbox: { secure?: SandboxSecureOptions; reconfig?: { superPassword: string } } = {},
): Promise<BenchEnv> {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-bench-'));
  scope.defer('remove state dir', () => rmSync(stateDir, { recursive: true, force: true }));
  const kind = sandbox.secure ? 'TLS-only' : sandbox.reconfig ? 'reconfig-enabled' : '';
  scope.log(`starting a 3-member ${kind ? `${kind} ` : ''}ensemble (port offset ${portOffset}, state in ${stateDir})`);
  const ensemble = await SandboxEnsemble.start({
    stateDir,
    portOffset,
    tickTime: 2000,
    ...(sandbox.secure ? { secure: sandbox.secure } : {}),
    ...(sandbox.reconfig ? { reconfig: sandbox.reconfig, log: (line: string) => scope.log(`sandbox: ${line}`) } : {}),
  });
  scope.defer('close ensemble', () => ensemble.close());
  const security = ensemble.security ? keeperSecureSettings(ensemble.security) : null;

  const keeper = await startKeeper(
    {
      host: '127.0.0.1',
      port: 0,
      ensembles: [
        {
          name: ENSEMBLE,
          connectionString: ensemble.connectionString,
          ...security,
          ...(sandbox.reconfig ? { reconfigAuth: { scheme: 'digest', credential: `super:${sandbox.reconfig.superPassword}` } } : {}),
        },
      ],
      ...options,
    },
    { logger: pino({ level: process.env.KEEPER_BENCH_LOG ?? 'silent' }), ...extras?.(ensemble) },
  );
  scope.defer('close keeper', () => keeper.close());
  const { gateway } = keeper.ensembles.get(ENSEMBLE);
  await until(() => gateway.session.state === 'connected', 'keeper to connect', { timeoutMs: 30_000, signal: scope.signal });
  const keeperMember = gateway.session.member ?? ensemble.connectionString.split(',')[0]!;
  scope.log(`keeper serving on ${keeper.url}, session on member ${keeperMember}`);
  const first = ensemble.members[0]!;
  const srvr = await fourLetterWord(first.host, first.clientPort, 'srvr', 5_000, ensemble.security?.pem ?? null);
  const zookeeperVersion = /^Zookeeper version: ([^-,\s]+)/m.exec(srvr)?.[1] ?? 'unknown';
  return { ensemble, keeper, gateway, keeperMember, zookeeperVersion, security };
}

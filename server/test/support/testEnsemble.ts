/**
 * A real 3-member ensemble for one test file, on ports apart from the sandbox's defaults
 * (so a running `npm start` never collides with `npm test`) and below the ephemeral range.
 * tickTime 500 lets sessions be as short as 1 s, which keeps fault tests fast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keeperSecureSettings, SandboxEnsemble, type SandboxOptions } from '../../../scripts/sandbox/index.js';
import type { EnsembleConfig } from '../../src/config/types.js';

/** Each test file's own port layout (one place, so none collides; see portOffsets.ts). */
export { PORT_OFFSETS } from '../../../scripts/sandbox/portOffsets.js';
/** A file that does not break its ensemble borrows a shared one instead (see sharedEnsemble.ts). */
export { leaseSharedEnsemble, type SharedEnsemble } from './sharedEnsemble.js';

/** `options`: extra zoo.cfg settings for every member or one (e.g. a restricted 4lw whitelist). */
export type TestEnsembleOptions = Pick<SandboxOptions, 'extraConfig' | 'memberConfig' | 'size' | 'secure' | 'readOnlyMode' | 'reconfig'>;

export async function startTestEnsemble(portOffset: number, options: TestEnsembleOptions = {}): Promise<SandboxEnsemble & { dispose(): Promise<void> }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'keeper-it-'));
  const ensemble = await SandboxEnsemble.start({ stateDir, portOffset, tickTime: 500, ...options });
  return Object.assign(ensemble, {
    async dispose() {
      await ensemble.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  });
}

/**
 * The config entry that points Keeper at a test ensemble, with its members' 4lw and AdminServer
 * ports, named `it` unless told; for a secure ensemble also its TLS files and, when SASL is
 * required, user `keeper`'s password file.
 */
export function ensembleConfigOf(
  ensemble: Pick<SandboxEnsemble, 'connectionString'> & {
    members: readonly { host: string; clientPort: number; adminPort: number }[];
    security?: SandboxEnsemble['security'];
  },
  extra: Partial<EnsembleConfig> = {},
): EnsembleConfig {
  return {
    name: 'it',
    connectionString: ensemble.connectionString,
    members: ensemble.members.map((m) => ({ host: m.host, clientPort: m.clientPort, adminPort: m.adminPort })),
    ...(ensemble.security ? keeperSecureSettings(ensemble.security) : {}),
    ...extra,
  };
}

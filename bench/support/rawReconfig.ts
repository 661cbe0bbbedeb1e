/**
 * The raw baseline of bench/reconfig.ts: an operator's script resizing the ensemble with
 * node-zookeeper-client and ZooKeeper's reconfig request (server/src/zk/reconfig.ts, op code 16),
 * no Keeper in between. Its session is ZooKeeper's super user; each step is conditioned on the
 * version the step before made (as Keeper's are), and before the next step it waits for what a
 * careful operator waits for and Keeper checks too: /zookeeper/config at that version, every
 * member of it answering srvr in its role, the leader's synced followers counting every voting
 * follower.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDynamicConfig, parseMntr, type DynamicConfig } from '@keeper/shared';
import { fourLetterWord, parseSrvrMode } from '../../scripts/sandbox/index.js';
import { CONFIG_PATH, hasChange } from '../../server/src/reconfig/executor.js';
import { toZkError } from '../../server/src/zk/errors.js';
import { reconfig } from '../../server/src/zk/reconfig.js';
import { connectRaw, type RawClient } from '../../server/test/support/rawClient.js';

/** The reply of a reconfig that removes the leader may be lost with its connection: read back. */
const LOST = new Set(['CONNECTION_LOSS', 'SESSION_MOVED', 'OPERATION_TIMEOUT', 'REQUEST_TIMEOUT']);

export interface RawReconfigSession {
  readConfig(): Promise<DynamicConfig>;
  /** One incremental reconfig under `fromConfig` (hex): the configuration it made. */
  step(step: { joining: string | null; leaving: string | null }, fromConfig: string): Promise<DynamicConfig>;
  close(): void;
}

export async function openRawReconfig(connectionString: string, superPassword: string): Promise<RawReconfigSession> {
  const raw: RawClient = await connectRaw(connectionString, { sessionTimeout: 30_000 });
  raw.client.addAuthInfo('digest', Buffer.from(`super:${superPassword}`));
  const readConfig = async () => parseDynamicConfig(await raw.get(CONFIG_PATH));
  return {
    readConfig,
    async step(step, fromConfig) {
      try {
        const data = await new Promise<Buffer>((resolve, reject) =>
          reconfig(raw.client, { joining: step.joining, leaving: step.leaving, newMembers: null, fromConfig: BigInt(`0x${fromConfig}`) }, (error, reply) =>
            error ? reject(error as Error) : resolve(reply!.data),
          ),
        );
        return parseDynamicConfig(data.toString('utf8'));
      } catch (error) {
        const code = toZkError(error, CONFIG_PATH).code;
        if (!LOST.has(code)) throw new Error(`reconfig ${step.joining ?? `-remove ${step.leaving}`} refused: ${code}`);
        // Lost with the connection: the configuration says whether it was applied.
        const deadline = Date.now() + 30_000;
        for (;;) {
          const config = await readConfig().catch(() => null);
          if (config && config.version !== fromConfig) {
            if (!hasChange(config, step)) throw new Error(`version ${config.version} lacks ${step.joining ?? `-remove ${step.leaving}`}`);
            return config;
          }
          if (Date.now() > deadline) throw new Error(`reconfig reply lost (${code}) and still at version ${fromConfig}`);
          await sleep(200);
        }
      }
    },
    close: () => raw.close(),
  };
}

async function srvrMode(host: string, port: number): Promise<string | null> {
  return fourLetterWord(host, port, 'srvr', 1_500).then(parseSrvrMode, () => null);
}

/**
 * Waits until `version` is /zookeeper/config's, every member of it serves in its role and the
 * leader's synced followers count every voting follower (Keeper's check after a step, polled
 * every 200 ms). Resolves with the leader's id.
 */
export async function waitSettled(session: RawReconfigSession, version: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let seen = '';
  for (;;) {
    const config = await session.readConfig().catch(() => null);
    if (config?.version === version) {
      const modes = await Promise.all(config.members.map(async (m) => ({ m, mode: await srvrMode(m.clientHost ?? m.host, m.clientPort!) })));
      seen = modes.map(({ m, mode }) => `${m.id}:${mode}`).join(' ');
      const inRole = modes.every(({ m, mode }) => (m.role === 'observer' ? mode === 'observer' : mode === 'leader' || mode === 'follower'));
      const leader = modes.find(({ mode }) => mode === 'leader')?.m;
      if (inRole && leader) {
        const mntr = await fourLetterWord(leader.clientHost ?? leader.host, leader.clientPort!, 'mntr', 1_500).catch(() => null);
        const voters = config.members.filter((m) => m.role === 'participant').length;
        const synced = mntr === null ? -1 : Number(parseMntr(mntr).get('synced_followers'));
        seen += `; synced ${synced} of ${voters - 1}`;
        if (synced >= voters - 1) return leader.id;
      }
    } else seen = `/zookeeper/config at ${config?.version ?? 'unread'}`;
    if (Date.now() > deadline) throw new Error(`version ${version} not settled within ${timeoutMs} ms: ${seen}`);
    await sleep(200);
  }
}

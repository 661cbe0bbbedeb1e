/**
 * Gathers what the resize preflight judges (shared/src/reconfig/preflight.ts): /zookeeper/config
 * and its ACL through the console's session, Keeper's identities (whoAmI), every configured
 * member's `conf` version, the lock's holder, and `srvr` of each member to add (after the
 * leader's, so that "caught up" compares with a zxid the leader had before). Every ask has a
 * deadline; a member that does not answer is said as such, never assumed.
 */
import {
  isNotServing,
  parseDynamicConfig,
  parseSrvr,
  reconfigPreflight,
  reconfigRights,
  type EnsembleHealth,
  type JoinerFacts,
  type ReconfigCheck,
  type ReconfigRights,
} from '@keeper/shared';
import { fourLetterWord } from '../members/wire.js';
import type { ZkGateway } from '../zk/gateway.js';
import type { ZkMutations } from '../zk/mutations.js';
import { CONFIG_PATH } from './executor.js';

const ASK_MS = 2_000;

export interface PreflightSources {
  gateway: ZkGateway;
  mutations: Pick<ZkMutations, 'getACL'>;
  health: EnsembleHealth;
  /** Who holds the ensemble's upgrade lock, or null (WorkflowLock.owner, described). */
  lockHolder: () => Promise<string | null>;
  /** Asks a member a four-letter word (the member poller's transport in the app; plain TCP by default). */
  ask?: (host: string, port: number, word: string) => Promise<string>;
}

export interface PreflightResult {
  checks: ReconfigCheck[];
  configText: string;
  rights: ReconfigRights;
}

/** A plain four-letter word with a deadline; the text, or a rejection saying why not. */
async function plainAsk(host: string, port: number, word: string): Promise<string> {
  const answer = await fourLetterWord(host, port, word, ASK_MS);
  if (!answer.ok) throw new Error(answer.message);
  return answer.text;
}

export async function gatherReconfigPreflight(
  src: PreflightSources,
  joiners: readonly { id: number; host: string; clientPort: number }[],
  leaving: readonly number[] = [],
): Promise<PreflightResult> {
  const ask = src.ask ?? plainAsk;
  const at = Date.now();
  const { data } = await src.gateway.getData(CONFIG_PATH);
  const configText = data.toString('utf8');
  const config = parseDynamicConfig(configText);
  const acl = await src.mutations.getACL(CONFIG_PATH).then(
    (a) => a.acl,
    () => [],
  );
  const rights = reconfigRights(acl, src.gateway.session.connection?.identity ?? []);
  const memberVersions = await Promise.all(
    config.members.map(async (m) => {
      const host = m.clientHost ?? m.host;
      const address = `${host}:${m.clientPort}`;
      const conf = m.clientPort === null ? null : await ask(host, m.clientPort, 'conf').catch(() => null);
      return { id: m.id, address, version: conf === null ? null : parseDynamicConfig(conf).version };
    }),
  );
  const leader = src.health.members.find((m) => m.state === 'leader');
  const leaderZxidBefore = leader
    ? await ask(leader.host, leader.clientPort, 'srvr').then(
        (t) => parseSrvr(t)?.zxid ?? leader.metrics.zxid,
        () => leader.metrics.zxid,
      )
    : null;
  const joinerFacts: JoinerFacts[] = await Promise.all(
    joiners.map(async (j) => {
      const srvr = await ask(j.host, j.clientPort, 'srvr').catch(() => null);
      const parsed = srvr === null ? null : parseSrvr(srvr);
      // "Not currently serving" is an answer: the member is up, outside any quorum (started without reconfigEnabled, it stays so).
      const notServing = srvr !== null && isNotServing(srvr);
      return { id: j.id, address: `${j.host}:${j.clientPort}`, mode: parsed?.mode ?? null, zxid: parsed?.zxid ?? null, notServing };
    }),
  );
  const checks = reconfigPreflight({
    at,
    health: src.health,
    configVersion: config.version ?? '(none)',
    memberVersions,
    rights,
    lockHolder: await src.lockHolder(),
    leaderZxidBefore,
    joiners: joinerFacts,
    leaving,
  });
  return { checks, configText, rights };
}

/**
 * The resize preflight (issue 24 item 1, docs/reconfig.md): each check with what it saw. The
 * member checks are the Upgrades view's own gates (every voter serving, the leader's followers
 * in sync); the rest are the reconfig's: the members agree on the dynamic configuration, Keeper
 * may reconfig, no upgrade or other reconfig holds the ensemble's lock, and each member to add
 * answers as a learner with the leader's zxid and the ensemble's configuration.
 *
 * ZooKeeper reports `reconfigEnabled` nowhere (not in `conf`, `mntr`, `envi` or the AdminServer's
 * `configuration`, checked on 3.8.0): what can be seen is that every member runs the same dynamic
 * configuration version; the leader's refusal (RECONFIG_DISABLED) at the first step is the proof.
 * A member to add shows it by its effect: with reconfigEnabled=true a learner takes the leader's
 * configuration when it syncs, so its `conf` shows the ensemble's version; without it, its own.
 */
import type { EnsembleHealth } from '../ensemble/types.js';
import { zxidParts } from '../ensemble/zxid.js';
import { syncedFollowersCheck, votersServingCheck } from '../upgrades/gates.js';
import { configVersionNumber } from './dynamicConfig.js';
import type { ReconfigRights } from './rights.js';

export interface ReconfigCheck {
  id: string;
  ok: boolean;
  saw: string;
  at: number;
}

export interface JoinerFacts {
  id: number;
  address: string;
  /** srvr's Mode (a joiner waits as follower or observer without voting); null when it does not answer or does not serve. */
  mode: string | null;
  /** srvr's Zxid (hex). */
  zxid: string | null;
  /**
   * The dynamic configuration version its own `conf` shows (hex, as printed); null when it did not
   * answer conf with one. A learner running with reconfigEnabled=true takes the leader's
   * configuration when it syncs (QuorumPeer.processReconfig); one without it keeps its own file's.
   */
  configVersion: string | null;
}

export interface ReconfigPreflightFacts {
  at: number;
  health: EnsembleHealth;
  /** /zookeeper/config's version. */
  configVersion: string;
  /** Each configured member's `conf` version (null: no answer or no dynamic configuration). */
  memberVersions: { id: number; address: string; version: string | null }[];
  rights: ReconfigRights;
  /** Who holds the ensemble's upgrade lock (an upgrade or a reconfig), or null. */
  lockHolder: string | null;
  /** The leader's zxid read before the joiners were asked: a joiner has caught up when it has at least this. */
  leaderZxidBefore: string | null;
  joiners: JoinerFacts[];
}

export function reconfigPreflight(f: ReconfigPreflightFacts): ReconfigCheck[] {
  const at = f.at;
  const checks: ReconfigCheck[] = [];
  const off = f.memberVersions.filter((m) => m.version !== f.configVersion);
  checks.push({
    id: 'dynamic-config',
    ok: off.length === 0,
    saw:
      off.length === 0
        ? `every member's conf shows the dynamic configuration version ${f.configVersion}; reconfigEnabled itself is reported nowhere, the leader's answer to the first step proves it`
        : `${off.map((m) => `member ${m.id} (${m.address}) ${m.version === null ? 'did not answer conf with a dynamic configuration' : `shows version ${m.version}`}`).join('; ')}, not ${f.configVersion}`,
    at,
  });
  checks.push({ id: 'reconfig-right', ok: f.rights.basis !== 'none', saw: f.rights.sentence, at });
  checks.push({ ...votersServingCheck(f.health, at) });
  checks.push({ ...syncedFollowersCheck(f.health, at) });
  checks.push({
    id: 'no-workflow',
    ok: f.lockHolder === null,
    saw:
      f.lockHolder === null
        ? 'no upgrade or reconfig holds the ensemble’s lock'
        : `the ensemble's lock is held by ${f.lockHolder}: an upgrade and a reconfig never run together`,
    at,
  });
  const reference = zxidParts(f.leaderZxidBefore);
  const a = (mode: string) => `${/^[aeio]/.test(mode) ? 'an' : 'a'} ${mode}`;
  for (const j of f.joiners) {
    const name = `member ${j.id} (${j.address})`;
    let ok = false;
    let saw: string;
    const z = zxidParts(j.zxid);
    if (j.mode === null) saw = `${name} does not answer srvr as a serving learner: start it with the current configuration plus itself`;
    else if (j.mode !== 'follower' && j.mode !== 'observer') saw = `${name} says Mode: ${j.mode}, not a learner waiting to be added`;
    else if (!tookLeadersConfig(j.configVersion, f.configVersion)) saw = withoutReconfig(name, j.configVersion, f.configVersion);
    else if (!reference || !z) saw = `${name} is ${a(j.mode)}, but its zxid or the leader's is not known`;
    else if (z.value < reference.value)
      saw = `${name} is ${a(j.mode)} at zxid 0x${z.value.toString(16)}, behind the leader's 0x${reference.value.toString(16)}`;
    else {
      ok = true;
      saw = `${name} is connected as ${a(j.mode)} (learner) at zxid 0x${z.value.toString(16)}, caught up with the leader`;
    }
    checks.push({ id: `joiner-${j.id}`, ok, saw, at });
  }
  return checks;
}

/**
 * Whether a serving learner shows the ensemble's configuration (or a newer one, taken from a reconfig
 * committed since /zookeeper/config was read). Versions are zxids, which only grow.
 */
function tookLeadersConfig(joiner: string | null, ensemble: string): boolean {
  const mine = joiner === null ? null : configVersionNumber(joiner);
  const theirs = configVersionNumber(ensemble);
  return mine !== null && (theirs === null || mine >= theirs);
}

function withoutReconfig(name: string, joiner: string | null, ensemble: string): string {
  if (joiner === null)
    return `${name} did not answer conf with a dynamic configuration: whether it runs with reconfigEnabled=true (a learner that does takes the ensemble's configuration, version ${ensemble}, when it syncs) cannot be seen`;
  return (
    `${name} keeps its own configuration (version ${joiner}), not the ensemble's version ${ensemble} that a learner takes from the leader when it syncs: ` +
    `it runs without reconfigEnabled=true and would not apply the reconfig that adds it; restart it with reconfigEnabled=true`
  );
}

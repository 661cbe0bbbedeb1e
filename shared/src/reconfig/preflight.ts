/**
 * The resize preflight (issue 24 item 1, docs/design/reconfig.md): each check with what it saw. The
 * member checks are the Upgrades view's own gates (every voter serving, the leader's followers
 * in sync); the rest are the reconfig's: the members agree on the dynamic configuration, Keeper
 * may reconfig, no upgrade or other reconfig holds the ensemble's lock, and each member to add
 * answers as a learner with the leader's zxid.
 *
 * ZooKeeper reports `reconfigEnabled` nowhere (not in `conf`, `mntr`, `envi` or the AdminServer's
 * `configuration`, checked on 3.8.0): what can be seen is that every member runs the same dynamic
 * configuration version; the leader's refusal (RECONFIG_DISABLED) at the first step is the proof.
 * A member to add shows it only by its effect: started without it, it never serves (seen on 3.8.0:
 * it restarts its election each time it hears of the ensemble's newer configuration version), so
 * one that answers but does not serve is told apart from one that does not answer at all.
 */
import type { EnsembleHealth } from '../ensemble/types.js';
import { zxidParts } from '../ensemble/zxid.js';
import { isObserver, isServing } from '../ensemble/quorum.js';
import { syncedFollowersCheck, votersServingCheck } from '../upgrades/gates.js';
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
  /** It answered srvr "not currently serving requests": its process is up, outside any quorum. */
  notServing: boolean;
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
  /** The ids of the members this resize removes (still to go): they need not serve, nor be synced. */
  leaving?: readonly number[];
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
  // A voter this resize removes need not serve: removing a frozen or dead voter is how it is fixed (refused
  // before with no way out, though the quorum held without it). The members that stay must all serve, and sync.
  const leaving = new Set(f.leaving ?? []);
  const staying: EnsembleHealth = { ...f.health, members: f.health.members.filter((m) => m.id === null || !leaving.has(m.id)) };
  const goneAnyway = f.health.members.filter((m) => m.id !== null && leaving.has(m.id) && !isObserver(m) && !isServing(m));
  const excused =
    goneAnyway.length === 0
      ? ''
      : `; ${goneAnyway.map((m) => `member ${m.id} (${m.address}, ${m.state})`).join(', ')} leaves in this resize and need not serve`;
  const serving = votersServingCheck(staying, at);
  const down = staying.members.filter((m) => !isObserver(m) && !isServing(m)).length;
  const them = down === 1 ? 'it' : 'them';
  checks.push({ ...serving, saw: `${serving.saw}${excused}${serving.ok ? '' : `: start ${them}, or remove ${them} in this resize`}` });
  // The leader still counts every voter it syncs, the leaving ones too (they are in the configuration
  // until their step): only those that cannot be synced, not serving, are left out of the expected count.
  // Counted against the staying ones, removing 2 serving voters of 5 said "4 of 2 followers synced".
  const syncable: EnsembleHealth = { ...f.health, members: f.health.members.filter((m) => !goneAnyway.includes(m)) };
  checks.push({ ...syncedFollowersCheck(syncable, at) });
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
    if (j.mode === null && j.notServing) saw = upNotServing(name);
    else if (j.mode === null) saw = `${name} does not answer srvr as a serving learner: start it with the current configuration plus itself`;
    else if (j.mode !== 'follower' && j.mode !== 'observer') saw = `${name} says Mode: ${j.mode}, not a learner waiting to be added`;
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
 * Up but outside any quorum while the ensemble has one: not a learner (yet). Its own words give no
 * cause; these are the ones that leave a member so, the one Keeper can least check first.
 */
function upNotServing(name: string): string {
  return (
    `${name} is up but not serving ("not currently serving requests"): it has not joined the leader as a learner. ` +
    'A member started without reconfigEnabled=true stays so (seen on ZooKeeper 3.8.0: it restarts its election each time it hears of the ' +
    "ensemble's newer configuration version, and never serves); so does one that cannot reach the members' quorum and election ports, and, " +
    'for a few seconds, one still syncing: start it with reconfigEnabled=true and the current configuration plus itself'
  );
}

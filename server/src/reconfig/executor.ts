/**
 * One resize step (docs/design/reconfig.md): one incremental reconfig, conditioned on the configuration
 * version Keeper last verified (fromConfig), sent once with a deadline. A lost reply is not a
 * failure: the outcome is read back from /zookeeper/config (the change there with a new version =
 * applied; the version unchanged = not applied, and safe to resend since the condition would
 * refuse a second application; another version without the change = someone else reconfigured).
 * ZooKeeper's refusals come back in the operator's words.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay, configVersionNumber, missingRight, parseDynamicConfig, type DynamicConfig } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import { toZkError } from '../zk/errors.js';
import { reconfig } from '../zk/reconfig.js';

export const CONFIG_PATH = '/zookeeper/config';
/** A reconfig waits for the new configuration's quorum to ack: longer than a write, bounded. */
export const RECONFIG_DEADLINE_MS = 30_000;

export interface ReconfigStepRequest {
  /** `server.N=…` (an add or a role change), or null. */
  joining: string | null;
  /** The id to remove, or null. */
  leaving: string | null;
  /** The version this step is conditioned on (hex, as /zookeeper/config prints it). */
  fromConfig: string;
}

export type ReconfigStepOutcome =
  /** The change is in the configuration, at `version` (hex); `afterLoss`: known by reading it back. */
  | { kind: 'applied'; version: string; config: DynamicConfig; afterLoss: boolean }
  /** ZooKeeper refused it; nothing changed. `code` is ZooKeeper's (BAD_VERSION, NO_AUTH, ...). */
  | { kind: 'refused'; code: string; reason: string }
  /** The reply was lost and the configuration is still at fromConfig: not applied (a resend is safe). */
  | { kind: 'notApplied'; reason: string }
  /** The configuration moved to another version without this change: someone else reconfigured. */
  | { kind: 'changedByOther'; version: string; reason: string }
  /** The reply was lost and the configuration could not be read before the deadline. */
  | { kind: 'unknown'; reason: string };

const LOST = new Set(['CONNECTION_LOSS', 'DEADLINE_EXCEEDED', 'NOT_CONNECTED', 'SESSION_EXPIRED', 'SESSION_MOVED', 'OPERATION_TIMEOUT', 'REQUEST_TIMEOUT']);

/** Whether `config` holds the step's change: the joining member with its role and ports, or the leaving id gone. */
export function hasChange(config: DynamicConfig, step: Pick<ReconfigStepRequest, 'joining' | 'leaving'>): boolean {
  if (step.leaving !== null && config.members.some((m) => String(m.id) === step.leaving)) return false;
  if (step.joining !== null) {
    const wanted = parseDynamicConfig(step.joining).members[0];
    const there = wanted && config.members.find((m) => m.id === wanted.id);
    if (!wanted || !there) return false;
    return (
      there.role === wanted.role && there.peerPort === wanted.peerPort && there.electionPort === wanted.electionPort && there.clientPort === wanted.clientPort
    );
  }
  return true;
}

/** ZooKeeper's refusal, said so that the operator knows what to do. */
export function describeRefusal(
  code: string,
  step: ReconfigStepRequest,
  detail: { aclText?: string; identities?: { scheme: string; id: string }[] } = {},
): string {
  switch (code) {
    case 'BAD_VERSION':
      return `the configuration changed since Keeper read version ${step.fromConfig}: someone else reconfigured the ensemble; nothing further was changed`;
    case 'NO_AUTH':
      return missingRight(detail.aclText ?? 'not read', detail.identities ?? []);
    case 'RECONFIG_DISABLED':
      return 'the leader runs with reconfigEnabled=false: set reconfigEnabled=true (and a dynamicConfigFile) on every member, restarting them one at a time';
    case 'NEW_CONFIG_NO_QUORUM':
      return step.joining !== null
        ? `the new configuration has no connected and synced quorum: start the member to add (${step.joining}) with the current configuration plus itself and wait until it has synced with the leader`
        : 'the new configuration has no connected and synced quorum: a majority of the remaining voters must be serving and synced';
    case 'RECONFIG_IN_PROGRESS':
      return 'another reconfig is in progress on the leader: wait for it to finish, then plan again';
    case 'BAD_ARGUMENTS':
      return `ZooKeeper refused the arguments (${step.joining ?? `remove ${step.leaving}`}): a port or address clashes, or the line is malformed`;
    case 'UNIMPLEMENTED':
      return 'this ZooKeeper cannot reconfig: it runs standalone (standaloneEnabled=true with one server) or is older than 3.5';
    default:
      return `ZooKeeper refused the reconfig: ${code}`;
  }
}

async function readConfig(gateway: ZkGateway, deadlineMs: number): Promise<DynamicConfig> {
  const { data } = await gateway.getData(CONFIG_PATH, { deadlineMs });
  return parseDynamicConfig(data.toString('utf8'));
}

/**
 * After a lost reply: reads /zookeeper/config until it tells, or the deadline passes. A new version
 * with the change is believed as read (versions only grow). An unchanged version is believed only
 * right after a sync: a member Keeper reconnected to may not have applied the commit yet (seen at
 * a load of 16, with the leader removing itself: three plain reads in a second said "not applied"
 * of a change that was). After the sync, the leader serving it has settled what was committed.
 */
async function verifyAfterLoss(gateway: ZkGateway, step: ReconfigStepRequest, deadlineAt: number, why: string): Promise<ReconfigStepOutcome> {
  for (let attempt = 0; ; attempt++) {
    const left = deadlineAt - Date.now();
    if (left <= 0)
      return { kind: 'unknown', reason: `${why}, and /zookeeper/config could not be read after a sync before the deadline: the outcome is not known` };
    try {
      const synced = await gateway.sync({ deadlineMs: left }).then(
        () => true,
        () => false,
      );
      const config = await readConfig(gateway, Math.max(1, deadlineAt - Date.now()));
      if (config.version !== null && config.version !== step.fromConfig) {
        if (hasChange(config, step)) return { kind: 'applied', version: config.version, config, afterLoss: true };
        return {
          kind: 'changedByOther',
          version: config.version,
          reason: `${why}; /zookeeper/config is now at version ${config.version} without this change: someone else reconfigured the ensemble`,
        };
      }
      if (synced)
        return { kind: 'notApplied', reason: `${why}; /zookeeper/config is still at version ${step.fromConfig} after a sync: the step was not applied` };
    } catch {
      // Not readable this time (the session moving to another member): read again after a back-off.
    }
    await sleep(Math.min(backoffDelay(attempt, { baseMs: 200, capMs: 2_000, jitter: [0.5, 1] }), Math.max(0, deadlineAt - Date.now())));
  }
}

export interface ExecuteOptions {
  deadlineMs?: number;
  /** For NO_AUTH: what Keeper's session is and what the ACL says (the preflight read them). */
  rights?: { aclText?: string; identities?: { scheme: string; id: string }[] };
  /**
   * Tests: wraps the one reconfig request, to lose its reply (send, then throw CONNECTION_LOSS)
   * or the request itself (throw without sending), so each branch of the read-back is taken on
   * purpose (reconfig.integration). Unset in Keeper.
   */
  around?: (send: () => Promise<{ data: Buffer }>) => Promise<{ data: Buffer }>;
}

export async function executeReconfigStep(gateway: ZkGateway, step: ReconfigStepRequest, opts: ExecuteOptions = {}): Promise<ReconfigStepOutcome> {
  const fromConfig = configVersionNumber(step.fromConfig);
  if (fromConfig === null)
    return { kind: 'refused', code: 'BAD_ARGUMENTS', reason: `fromConfig ${JSON.stringify(step.fromConfig)} is not a configuration version` };
  const deadlineMs = opts.deadlineMs ?? RECONFIG_DEADLINE_MS;
  const deadlineAt = Date.now() + deadlineMs;
  try {
    const send = () =>
      gateway.callOnce<{ data: Buffer }>(
        'reconfig',
        CONFIG_PATH,
        (client, done) =>
          reconfig(client, { joining: step.joining, leaving: step.leaving, newMembers: null, fromConfig }, (error, value) => done(error, value)),
        { deadlineMs },
      );
    const reply = await (opts.around ? opts.around(send) : send());
    const config = parseDynamicConfig(reply.data.toString('utf8'));
    if (config.version !== null && hasChange(config, step)) return { kind: 'applied', version: config.version, config, afterLoss: false };
    // An OK whose configuration lacks the change should not happen; read it back rather than trust either.
    return verifyAfterLoss(gateway, step, Math.max(deadlineAt, Date.now() + 5_000), 'ZooKeeper answered OK with a configuration that lacks the change');
  } catch (error) {
    const code = toZkError(error, CONFIG_PATH).code;
    if (LOST.has(code)) {
      // The reply (or the request) was lost: verify. At least 5 s to read back, even when the deadline went on the call.
      return verifyAfterLoss(gateway, step, Math.max(deadlineAt, Date.now() + 5_000), `the reply was lost (${code})`);
    }
    return { kind: 'refused', code, reason: describeRefusal(code, step, opts.rights) };
  }
}

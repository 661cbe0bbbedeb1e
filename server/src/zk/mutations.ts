/**
 * Writes through the gateway, correct under faults. CONNECTION_LOSS (or a deadline, or an
 * expiry) after a request was sent does not mean it failed: ZooKeeper may have applied it.
 * So a mutation is sent once; when its fate is uncertain we read the znode back and say what
 * really happened. A version-checked write that provably did not apply is re-sent once,
 * which is safe: if it had applied, the version would no longer match.
 *
 * Size: a member drops the whole connection (every request of the shared session with it)
 * when a request packet is longer than its jute.maxbuffer. So create and setData are measured
 * exactly (shared/requestSize.ts) and refused before sending; and a large create or setData
 * whose connection dropped is read back but never re-sent, since it may itself have caused the
 * drop (a member configured below Keeper's setting).
 */
import zookeeper from 'node-zookeeper-client';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay, checkRequestSize, DEFAULT_JUTE_MAX_BUFFER, readOnlyReason, type SizedRequest, type ZnodeStat } from '@keeper/shared';
import { ZkError, toZkError } from './errors.js';
import { READ_RETRY, type ZkGateway } from './gateway.js';
import { toZnodeStat } from './stat.js';

/** Failures after which the request may or may not have been applied. */
const UNCERTAIN = new Set(['CONNECTION_LOSS', 'DEADLINE_EXCEEDED', 'SESSION_EXPIRED', 'OPERATION_TIMEOUT', 'REQUEST_TIMEOUT']);

export interface MutationOutcome<T> {
  value: T;
  /** False when the first reply was lost and the outcome was established by reading back. */
  confirmedDirectly: boolean;
  /** What happened, when it took more than one reply to know ("reply lost; read back: applied"). */
  note?: string;
}

export type AclEntry = { scheme: string; id: string; permissions: number };

/** Verification reads get their own, longer deadline: the ensemble may be electing a leader. */
const VERIFY_DEADLINE_MS = 30_000;

/** The library stores `permission`; its type definitions call it `perms`. */
function aclPermissions(acl: zookeeper.ACL): number {
  return (acl as unknown as { permission: number }).permission;
}

function isUncertain(error: unknown): boolean {
  return UNCERTAIN.has(toZkError(error).code);
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && a.equals(b);
}

/**
 * Past this packet size a create or setData is not re-sent after its connection dropped: no
 * member is configured with a jute.maxbuffer this small, so a smaller request cannot have
 * caused the drop, and a larger one might have (a member set below Keeper's juteMaxBuffer).
 */
export const RESEND_MAX_PACKET_BYTES = 64 * 1024;

export interface MutationOptions {
  /** The members' jute.maxbuffer (default 1,048,575): longer request packets are refused before sending. */
  juteMaxBuffer?: number;
  /** The connection string's chroot: the client puts it before every path on the wire. */
  chroot?: string | null;
}

export class ZkMutations {
  readonly juteMaxBuffer: number;
  private readonly chroot: string | null;

  constructor(
    private readonly gateway: ZkGateway,
    options: MutationOptions = {},
  ) {
    this.juteMaxBuffer = options.juteMaxBuffer ?? DEFAULT_JUTE_MAX_BUFFER;
    this.chroot = options.chroot ?? null;
  }

  /**
   * Refuses a write while the session is read-only (a member that lost quorum serves it): the
   * member would answer NOT_READ_ONLY; the operator is told why, in the words every view uses.
   */
  assertWritable(path: string): void {
    const session = this.gateway.session;
    if (session.state !== 'readOnly') return;
    throw new ZkError('NOT_CONNECTED', `${readOnlyReason(session.connection?.readOnly ?? null, session.member)}: writes wait for a member with quorum`, path);
  }

  /** Refuses (DATA_TOO_LARGE) a request the members would drop the connection for; returns its packet size. */
  assertFits(request: SizedRequest): number {
    const check = checkRequestSize({ ...request, chroot: this.chroot }, this.juteMaxBuffer);
    if (!check.ok) throw new ZkError('DATA_TOO_LARGE', check.reason, request.path);
    return check.packetBytes;
  }

  async setData(path: string, data: Buffer, version: number): Promise<MutationOutcome<ZnodeStat>> {
    this.assertWritable(path);
    const packetBytes = this.assertFits({ op: 'setData', path, dataBytes: data.length });
    const send = () =>
      this.gateway.callOnce<ZnodeStat>('setData', path, (client, done) =>
        client.setData(path, data, version, (error, stat) => (error ? done(error) : done(null, toZnodeStat(stat)))),
      );
    try {
      return { value: await send(), confirmedDirectly: true };
    } catch (error) {
      if (!isUncertain(error)) throw toZkError(error, path);
      const now = await this.readBack(path);
      if (!now) throw new ZkError('NO_NODE', `reply to setData ${path} was lost and the node no longer exists`, path);
      if (version !== -1 && now.stat.version === version) {
        if (packetBytes > RESEND_MAX_PACKET_BYTES) throw notResent('setData', path, packetBytes, this.juteMaxBuffer);
        // Provably not applied, and version-checked: re-sending cannot apply twice.
        return { value: await send(), confirmedDirectly: false, note: 'reply lost; read back: not applied; re-sent once' };
      }
      if (sameBytes(now.data, data) && (version === -1 || now.stat.version === version + 1)) {
        return { value: now.stat, confirmedDirectly: false, note: 'reply lost; read back: applied' };
      }
      throw new ZkError(
        'OUTCOME_UNKNOWN',
        `reply to setData ${path} was lost and the node has changed since (version ${now.stat.version}); check it before retrying`,
        path,
      );
    }
  }

  async create(path: string, data: Buffer, mode: number, acl?: AclEntry[]): Promise<MutationOutcome<string>> {
    this.assertWritable(path);
    const acls = acl
      ? acl.map((a) => new zookeeper.ACL(a.permissions, new zookeeper.Id(a.scheme, a.id)))
      : [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('world', 'anyone'))];
    const packetBytes = this.assertFits({ op: 'create', path, dataBytes: data.length, acl: acls.map((a) => a.id) });
    const send = () =>
      this.gateway.callOnce<string>('create', path, (client, done) =>
        client.create(path, data, acls, mode, (error, created) => (error ? done(error) : done(null, created))),
      );
    try {
      return { value: await send(), confirmedDirectly: true };
    } catch (error) {
      if (!isUncertain(error)) throw toZkError(error, path);
      const sequential = mode === zookeeper.CreateMode.PERSISTENT_SEQUENTIAL || mode === zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL;
      if (sequential) {
        // A sequential name is chosen by the server: a lost reply leaves nothing to look up.
        throw new ZkError('OUTCOME_UNKNOWN', `reply to create ${path} (sequential) was lost; list its parent before retrying`, path);
      }
      const now = await this.readBack(path);
      if (!now && packetBytes > RESEND_MAX_PACKET_BYTES) throw notResent('create', path, packetBytes, this.juteMaxBuffer);
      if (!now) return { value: await send(), confirmedDirectly: false, note: 'reply lost; read back: not created; re-sent once' };
      if (sameBytes(now.data, data)) return { value: path, confirmedDirectly: false, note: 'reply lost; read back: created' };
      throw new ZkError('NODE_EXISTS', `reply to create ${path} was lost and the node now exists with other data`, path);
    }
  }

  async remove(path: string, version: number): Promise<MutationOutcome<null>> {
    this.assertWritable(path);
    const send = () => this.gateway.callOnce<null>('remove', path, (client, done) => client.remove(path, version, (error) => done(error ?? null, null)));
    try {
      await send();
      return { value: null, confirmedDirectly: true };
    } catch (error) {
      if (!isUncertain(error)) throw toZkError(error, path);
      // exists, not getData: it needs no permission, so a node the console may not read can still be deleted.
      const now = await this.statBack(path);
      if (!now) return { value: null, confirmedDirectly: false, note: 'reply lost; read back: deleted' };
      if (version === -1 || now.version === version) {
        await send();
        return { value: null, confirmedDirectly: false, note: 'reply lost; read back: still there; re-sent once' };
      }
      throw new ZkError('BAD_VERSION', `reply to delete ${path} was lost and the node changed since (version ${now.version})`, path);
    }
  }

  async getACL(path: string): Promise<{ acl: AclEntry[]; stat: ZnodeStat }> {
    return this.gateway.callOnce('getACL', path, (client, done) =>
      client.getACL(path, (error, acls, stat) =>
        error
          ? done(error)
          : done(null, { acl: acls.map((a) => ({ scheme: a.id.scheme, id: a.id.id, permissions: aclPermissions(a) })), stat: toZnodeStat(stat) }),
      ),
    );
  }

  async setACL(path: string, acl: AclEntry[], version: number): Promise<MutationOutcome<ZnodeStat>> {
    this.assertWritable(path);
    const acls = acl.map((a) => new zookeeper.ACL(a.permissions, new zookeeper.Id(a.scheme, a.id)));
    const send = () =>
      this.gateway.callOnce<ZnodeStat>('setACL', path, (client, done) =>
        client.setACL(path, acls, version, (error, stat) => (error ? done(error) : done(null, toZnodeStat(stat)))),
      );
    try {
      return { value: await send(), confirmedDirectly: true };
    } catch (error) {
      if (!isUncertain(error)) throw toZkError(error, path);
      const now = await this.getACLWithRetry(path);
      if (version !== -1 && now.stat.aversion === version)
        return { value: await send(), confirmedDirectly: false, note: 'reply lost; read back: not applied; re-sent once' };
      const same =
        now.acl.length === acl.length && now.acl.every((a, i) => a.scheme === acl[i]?.scheme && a.id === acl[i]?.id && a.permissions === acl[i]?.permissions);
      if (same) return { value: now.stat, confirmedDirectly: false, note: 'reply lost; read back: applied' };
      throw new ZkError('OUTCOME_UNKNOWN', `reply to setACL ${path} was lost and the ACL differs; check it before retrying`, path);
    }
  }

  /**
   * Before reading back: the session may have moved to a member that has not applied the lost
   * request's commit yet, and would say "not applied" of a write that was. A sync first makes the
   * read current. If no sync is answered in time, the read still runs, and what it says is all
   * there is to go on (a read that fails then says "outcome unknown").
   */
  private async caughtUp(): Promise<void> {
    await this.gateway.sync({ deadlineMs: VERIFY_DEADLINE_MS }).catch(() => undefined);
  }

  /** Reads the node back after an uncertain reply; null if it does not exist. */
  private async readBack(path: string): Promise<{ data: Buffer; stat: ZnodeStat } | null> {
    await this.caughtUp();
    try {
      return await this.gateway.getData(path, { deadlineMs: VERIFY_DEADLINE_MS });
    } catch (error) {
      if (toZkError(error).code === 'NO_NODE') return null;
      throw new ZkError('OUTCOME_UNKNOWN', `the reply was lost and reading ${path} back failed: ${toZkError(error).message}`, path);
    }
  }

  /** The node's stat after an uncertain reply (exists: no permission needed); null if it does not exist. */
  private async statBack(path: string): Promise<ZnodeStat | null> {
    await this.caughtUp();
    try {
      return await this.gateway.exists(path, { deadlineMs: VERIFY_DEADLINE_MS });
    } catch (error) {
      throw new ZkError('OUTCOME_UNKNOWN', `the reply was lost and reading ${path} back failed: ${toZkError(error).message}`, path);
    }
  }

  private async getACLWithRetry(path: string): Promise<{ acl: AclEntry[]; stat: ZnodeStat }> {
    await this.caughtUp();
    const deadline = Date.now() + VERIFY_DEADLINE_MS;
    // The same back-off as the gateway's own read retries: getACL is a read, sent by callOnce.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.getACL(path);
      } catch (error) {
        if (!toZkError(error).transient || Date.now() > deadline) throw toZkError(error, path);
        await sleep(backoffDelay(attempt, READ_RETRY));
      }
    }
  }
}

function notResent(op: string, path: string, packetBytes: number, limit: number): ZkError {
  return new ZkError(
    'CONNECTION_LOSS',
    `reply to ${op} ${path} was lost; read back: not applied. Not re-sent: a ${packetBytes.toLocaleString('en-US')}-byte request may itself have dropped the connection ` +
      `if a member's jute.maxbuffer is below Keeper's setting (${limit.toLocaleString('en-US')}); check the members' logs for "Len error" before retrying`,
    path,
  );
}

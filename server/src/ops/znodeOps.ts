/**
 * Admin operations on znodes, each on the Ensemble the caller's edge looked up by name (the
 * HTTP routes' ensembleLookup), refused and audited through the admin kernel (admin/admin.ts).
 * Every operation:
 *  - refuses any identity that may not do it (FORBIDDEN, and the refusal is audited): znode
 *    changes (create, set data, delete, import) admins anywhere and writers within their
 *    granted subtrees; ACLs, jobs of others, locks and upgrades admins only;
 *  - writes only through ZkMutations (outcome verified after a lost reply; its note surfaced);
 *  - checks versions: a stale one changes nothing and answers BAD_VERSION with the current value;
 *  - appends an audit entry with before/after fingerprints (version, size, sha256).
 */
import zookeeper from 'node-zookeeper-client';
import {
  consoleAccessUnder,
  encodeZnodeData,
  MAX_REPORTED_SKIPPED,
  MAX_ZNODE_DATA_BYTES,
  type ConsoleIdentity,
  type CreateBody,
  type CreateModeName,
  type ExportDocument,
  type ImportPlan,
  type JobSnapshot,
  type SetAclBody,
  type SetDataBody,
  type ZnodeStat,
  type WriteAnswer,
  type DeleteAnswer,
  type AclAnswer,
  type SetAclAnswer,
  type SubtreeCount,
  CREATE_UNDER_ZOOKEEPER_REFUSED,
  isProtectedFromCreate,
  isProtectedFromDelete,
} from '@keeper/shared';
import { checkPath } from '@keeper/shared';
import { fingerprint } from '../audit/fingerprint.js';
import { adminRefusal, canMutate, changeRefusal, type Identity } from '../auth/identity.js';
import type { Admin, AuditRecord, Caller } from '../admin/admin.js';
import type { ZkGateway } from '../zk/gateway.js';
import { toZkError } from '../zk/errors.js';
import type { ZkMutations } from '../zk/mutations.js';
import type { EnsembleConfig } from '../config/types.js';
import { toAclEntries, toAclView } from './aclInput.js';
import { decodeInputData } from './dataInput.js';
import { OpError, toOpError } from '../admin/opError.js';
import { runRecursiveDelete, type RecursiveDeleteOptions } from './recursiveDelete.js';
import { walkSubtree } from './subtree.js';
import { assertImportable, exportSubtree, planImportFor, runImport } from './exportImport.js';
import { chrootOf, consoleIdentityOf } from './consoleIdentity.js';
import { refusalMessage, type ImportCheckContext } from './importChecks.js';

/** What the znode operations use of the ensemble they act on (ensemble/ensemble.ts is one). */
export interface ZnodeOpsEnsemble {
  readonly name: string;
  readonly gateway: ZkGateway;
  readonly mutations: ZkMutations;
  readonly config: Pick<EnsembleConfig, 'auth'>;
}

const CREATE_MODE: Record<CreateModeName, number> = {
  persistent: zookeeper.CreateMode.PERSISTENT,
  persistent_sequential: zookeeper.CreateMode.PERSISTENT_SEQUENTIAL,
  ephemeral: zookeeper.CreateMode.EPHEMERAL,
  ephemeral_sequential: zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL,
};

export const MAX_COUNT_NODES = 200_000;

export interface OpsContext {
  admin: Admin;
  /** Tests shorten the recursive delete's patience. */
  recursiveDelete?: Pick<RecursiveDeleteOptions, 'concurrency' | 'stallMs' | 'hold'>;
}

export class ZnodeOps {
  constructor(private readonly ctx: OpsContext) {}

  async create(caller: Caller, ensemble: ZnodeOpsEnsemble, path: string, body: CreateBody): Promise<WriteAnswer> {
    const { gateway, mutations } = ensemble;
    const mode = body.mode ?? 'persistent';
    return this.ctx.admin.audited(
      caller,
      { action: 'create', ensemble: ensemble.name, path, details: { mode } },
      async (record) => {
        validPath(path);
        if (isProtectedFromCreate(path)) throw new OpError('PROTECTED_PATH', `${path} ${path === '/' ? 'always exists' : CREATE_UNDER_ZOOKEEPER_REFUSED}`);
        const data = decodeInputData(body.data, body.encoding);
        const outcome = await mutations.create(path, data, CREATE_MODE[mode]);
        const created = outcome.value;
        const stat = (await gateway.exists(created)) ?? fallbackStat(data.length);
        record.after = fingerprint(data, stat);
        record.path = created;
        const warning = mode.startsWith('ephemeral')
          ? `ephemeral: ${created} belongs to the console's own ZooKeeper session (${gateway.session.sessionId ?? 'unknown'}) and vanishes when that session ends or expires (a Keeper restart, a long partition); this is rarely what you want`
          : undefined;
        return { path: created, stat, ...(outcome.note ? { note: outcome.note } : {}), ...(warning ? { warning } : {}) };
      },
      'znode',
    );
  }

  async setData(caller: Caller, ensemble: ZnodeOpsEnsemble, path: string, body: SetDataBody): Promise<WriteAnswer> {
    const { gateway, mutations } = ensemble;
    return this.ctx.admin.audited(
      caller,
      { action: 'setData', ensemble: ensemble.name, path, details: { expectedVersion: body.version } },
      async (record) => {
        validPath(path);
        const data = decodeInputData(body.data, body.encoding);
        // Refused before even reading: a packet over jute.maxbuffer would drop the shared connection.
        mutations.assertFits({ op: 'setData', path, dataBytes: data.length });
        const before = await gateway.getData(path);
        record.before = fingerprint(before.data, before.stat);
        if (before.stat.version !== body.version) throw staleVersion(path, body.version, before);
        try {
          const outcome = await mutations.setData(path, data, body.version);
          record.after = fingerprint(data, outcome.value);
          return { path, stat: outcome.value, ...(outcome.note ? { note: outcome.note } : {}) };
        } catch (error) {
          if (toOpError(error).code !== 'BAD_VERSION') throw error;
          // Changed between our read and our write: show the value that won.
          throw staleVersion(path, body.version, await gateway.getData(path));
        }
      },
      'znode',
    );
  }

  async delete(caller: Caller, ensemble: ZnodeOpsEnsemble, path: string, version: number): Promise<DeleteAnswer> {
    const { gateway, mutations } = ensemble;
    return this.ctx.admin.audited(
      caller,
      { action: 'delete', ensemble: ensemble.name, path, details: { expectedVersion: version } },
      async (record) => {
        validPath(path);
        if (isProtectedFromDelete(path)) throw new OpError('PROTECTED_PATH', `${path} is ZooKeeper's own and cannot be deleted`);
        // A node the console may not read can still be deleted (ZooKeeper asks only DELETE on the parent).
        const stat = await this.recordBefore(record, gateway, path);
        if (stat.version !== version) throw await staleVersionAt(gateway, path, version);
        if (stat.numChildren > 0) {
          throw new OpError(
            'NOT_EMPTY',
            `${path} has ${stat.numChildren} children: delete with recursive=true (count them first with GET /api/ensembles/${ensemble.name}/subtree${path})`,
          );
        }
        try {
          const outcome = await mutations.remove(path, version);
          record.after = null;
          return { path, ...(outcome.note ? { note: outcome.note } : {}) };
        } catch (error) {
          if (toOpError(error).code !== 'BAD_VERSION') throw error;
          throw await staleVersionAt(gateway, path, version);
        }
      },
      'znode',
    );
  }

  /** Checks the root's version now, then deletes in a job; the job's end is audited too. */
  async startRecursiveDelete(caller: Caller, ensemble: ZnodeOpsEnsemble, path: string, version: number): Promise<JobSnapshot> {
    const { gateway, mutations } = ensemble;
    return this.ctx.admin.audited(
      caller,
      { action: 'deleteRecursive', ensemble: ensemble.name, path, details: { expectedVersion: version, phase: 'start' } },
      async (record) => {
        validPath(path);
        if (isProtectedFromDelete(path)) throw new OpError('PROTECTED_PATH', `${path} is ZooKeeper's own and cannot be deleted`);
        const stat = await this.recordBefore(record, gateway, path);
        if (stat.version !== version) throw await staleVersionAt(gateway, path, version);
        const job = this.ctx.admin.startAuditedJob(
          caller,
          { kind: 'recursiveDelete', ensemble: ensemble.name, path },
          (control) => runRecursiveDelete({ gateway, mutations, root: path, rootVersion: version, ...this.ctx.recursiveDelete }, control),
          record.before ?? null,
        );
        record.details = { ...record.details, jobId: job.id };
        return job;
      },
      'znode',
    );
  }

  /** Admins cancel any job; a writer only one it started (its own recursive delete or import). */
  cancelJob(caller: Caller, jobId: string): JobSnapshot {
    if (!canMutate(caller.identity) && !this.startedBy(caller.identity, jobId)) {
      const refusal = adminRefusal(caller.identity);
      void this.ctx.admin.refuse(caller, { action: 'cancelJob', details: { jobId } }, refusal);
      throw new OpError('FORBIDDEN', refusal);
    }
    return this.ctx.admin.jobs.cancel(jobId);
  }

  /** Whether a writer started this job (a writer's jobs are always within its subtrees). */
  startedBy(identity: Identity, jobId: string): boolean {
    return identity.role === 'writer' && identity.shareLinkId === undefined && this.ctx.admin.jobs.get(jobId)?.startedBy === identity.name;
  }

  async getAcl(ensemble: ZnodeOpsEnsemble, path: string): Promise<AclAnswer> {
    const { mutations } = ensemble;
    validPath(path);
    try {
      const { acl, stat } = await mutations.getACL(path);
      return { path, acl: toAclView(acl), stat };
    } catch (error) {
      throw toOpError(error, path);
    }
  }

  async setAcl(caller: Caller, ensemble: ZnodeOpsEnsemble, path: string, body: SetAclBody): Promise<SetAclAnswer> {
    const { gateway, mutations } = ensemble;
    return this.ctx.admin.audited(
      caller,
      { action: 'setAcl', ensemble: ensemble.name, path, details: { expectedAclVersion: body.version } },
      async (record) => {
        validPath(path);
        const acl = toAclEntries(body.acl);
        // Warned before anything is read or written: an ACL that takes read or admin from the console needs the path typed back.
        const access = consoleAccessUnder(acl, this.consoleIdentity(ensemble));
        record.details = { ...record.details, consoleAccess: access.verdict, ...(body.confirm !== undefined ? { confirmed: body.confirm === path } : {}) };
        if (access.verdict !== 'keeps' && body.confirm !== path) {
          const what = access.verdict === 'unknown' ? 'may lock the console out' : 'locks the console out';
          throw new OpError(
            'ACL_LOCKS_OUT',
            `this ACL ${what} of ${path}: ${access.reason} To apply it anyway, send "confirm" equal to the path (${JSON.stringify(path)}).`,
          );
        }
        const before = await mutations.getACL(path);
        record.details = { ...record.details, aclBefore: toAclView(before.acl), aclAfter: toAclView(acl) };
        if (before.stat.aversion !== body.version) {
          throw new OpError('BAD_VERSION', `the ACL of ${path} is at version ${before.stat.aversion}, not ${body.version}: it changed since you read it`);
        }
        const outcome = await mutations.setACL(path, acl, body.version);
        // ZooKeeper fires no watch for an ACL change: what Keeper holds of the node is read again,
        // so a node the console may no longer read stops being shown (and served) from before.
        gateway.watches.refresh(path);
        // The ACL's own version (aversion) is what a later version-checked change must name.
        record.details = { ...record.details, aclVersionBefore: before.stat.aversion, aclVersionAfter: outcome.value.aversion };
        return { path, acl: toAclView(acl), stat: outcome.value, ...(outcome.note ? { note: outcome.note } : {}) };
      },
    );
  }

  /** How many nodes a recursive delete (or an export) would touch, the root included. */
  async countSubtree(ensemble: ZnodeOpsEnsemble, path: string): Promise<SubtreeCount> {
    const { gateway } = ensemble;
    validPath(path);
    try {
      const tree = await walkSubtree(gateway, path, { maxNodes: MAX_COUNT_NODES, truncate: true });
      const count = { path, count: tree.nodes.length, truncated: tree.truncated, depth: Math.max(0, ...tree.nodes.map((n) => n.depth)) };
      // Nodes below an unreadable one are not counted: `skipped` names where the count is short (an unreadable leaf is counted exactly).
      const short = tree.unlisted.filter((u) => u.children !== 0);
      return short.length === 0 ? count : { ...count, skipped: short.slice(0, MAX_REPORTED_SKIPPED), skippedTotal: short.length };
    } catch (error) {
      throw toOpError(error, path);
    }
  }

  /** A read: any identity may export what it can see. */
  async exportSubtree(ensemble: ZnodeOpsEnsemble, path: string): Promise<ExportDocument> {
    const { gateway, mutations } = ensemble;
    validPath(path);
    try {
      return await exportSubtree(gateway, mutations, path);
    } catch (error) {
      throw toOpError(error, path);
    }
  }

  /** The dry run: what an import would do, changing nothing (admins only, like the import itself). */
  async planImport(caller: Caller, ensemble: ZnodeOpsEnsemble, path: string, doc: ExportDocument, overwrite: boolean): Promise<ImportPlan> {
    const { gateway } = ensemble;
    const refusal = changeRefusal(caller.identity, ensemble.name, path);
    if (refusal !== null) {
      await this.ctx.admin.refuse(caller, { action: 'import', ensemble: ensemble.name, path, details: { dryRun: true } }, refusal);
      throw new OpError('FORBIDDEN', refusal);
    }
    validPath(path);
    assertImportable(doc);
    if (isProtectedFromCreate(path) && path !== '/') throw new OpError('PROTECTED_PATH', `${path} ${CREATE_UNDER_ZOOKEEPER_REFUSED}`);
    try {
      return await planImportFor(gateway, path, doc, overwrite, this.importChecks(ensemble, caller));
    } catch (error) {
      throw toOpError(error, path);
    }
  }

  async startImport(caller: Caller, ensemble: ZnodeOpsEnsemble, path: string, doc: ExportDocument, overwrite: boolean): Promise<JobSnapshot> {
    const { gateway, mutations } = ensemble;
    return this.ctx.admin.audited(
      caller,
      { action: 'import', ensemble: ensemble.name, path, details: { phase: 'start', nodes: doc.nodes.length, overwrite, from: `${doc.ensemble}:${doc.root}` } },
      async (record) => {
        validPath(path);
        assertImportable(doc);
        if (isProtectedFromCreate(path) && path !== '/') throw new OpError('PROTECTED_PATH', `${path} ${CREATE_UNDER_ZOOKEEPER_REFUSED}`);
        const checks = this.importChecks(ensemble, caller);
        // What the dry run would show as problems refuses the import now, before a job starts (the job checks its fresh plan again).
        const plan = await planImportFor(gateway, path, doc, overwrite, checks);
        if ((plan.problemsTotal ?? 0) > 0) throw new OpError('IMPORT_REFUSED', refusalMessage(plan.problems ?? [], plan.problemsTotal));
        const job = this.ctx.admin.startAuditedJob(
          caller,
          { kind: 'import', ensemble: ensemble.name, path },
          (control) => runImport(gateway, mutations, path, doc, overwrite, control, checks),
          null,
        );
        record.details = { ...record.details, jobId: job.id };
        return job;
      },
      'znode',
    );
  }

  /** Who the console is to ZooKeeper's ACL checks on this ensemble. */
  consoleIdentity(ensemble: ZnodeOpsEnsemble): ConsoleIdentity {
    const { gateway } = ensemble;
    return consoleIdentityOf(gateway.connectionString, ensemble.config.auth ?? [], gateway.session.connection?.identity ?? null);
  }

  private importChecks(ensemble: ZnodeOpsEnsemble, caller: Caller): ImportCheckContext {
    const { gateway, mutations } = ensemble;
    return {
      juteMaxBuffer: mutations.juteMaxBuffer,
      chroot: chrootOf(gateway.connectionString),
      console: this.consoleIdentity(ensemble),
      maySetAcl: canMutate(caller.identity),
    };
  }

  /**
   * The node's stat before a delete, and the audit's "before": a fingerprint when the console may
   * read the node; when it may not, exists (which needs no permission) gives version and size.
   */
  private async recordBefore(record: AuditRecord, gateway: ZkGateway, path: string): Promise<ZnodeStat> {
    try {
      const { data, stat } = await gateway.getData(path);
      record.before = fingerprint(data, stat);
      return stat;
    } catch (error) {
      if (toZkError(error).code !== 'NO_AUTH') throw error;
      const stat = await statOf(gateway, path);
      record.details = {
        ...record.details,
        before: { version: stat.version, size: stat.dataLength, unreadable: 'the console may not read this node: no fingerprint' },
      };
      return stat;
    }
  }
}

function validPath(path: string): void {
  const check = checkPath(path);
  if (!check.ok) throw new OpError('INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
}

/** The node's stat through exists, which needs no permission (NO_NODE when absent). */
async function statOf(gateway: ZkGateway, path: string): Promise<ZnodeStat> {
  const stat = await gateway.exists(path);
  if (!stat) throw new OpError('NO_NODE', `${path} does not exist`);
  return stat;
}

/** BAD_VERSION with the current value when the console may read it, with the current stat alone when not. */
async function staleVersionAt(gateway: ZkGateway, path: string, expected: number): Promise<OpError> {
  try {
    return staleVersion(path, expected, await gateway.getData(path));
  } catch (error) {
    if (toZkError(error).code !== 'NO_AUTH') throw error;
    const stat = await statOf(gateway, path);
    return new OpError(
      'BAD_VERSION',
      `${path} is at version ${stat.version}, not ${expected}: it changed since you read it; nothing was written (the console may not read its data)`,
    );
  }
}

function staleVersion(path: string, expected: number, current: { data: Buffer; stat: ZnodeStat }): OpError {
  return new OpError('BAD_VERSION', `${path} is at version ${current.stat.version}, not ${expected}: it changed since you read it; nothing was written`, {
    stat: current.stat,
    data: encodeZnodeData(current.data, MAX_ZNODE_DATA_BYTES),
  });
}

/** A node that vanished right after its creation (an ephemeral whose session ended) still gets a stat-shaped answer. */
function fallbackStat(size: number): ZnodeStat {
  return {
    czxid: '0x0',
    mzxid: '0x0',
    pzxid: '0x0',
    ctime: 0,
    mtime: 0,
    version: 0,
    cversion: 0,
    aversion: 0,
    ephemeralOwner: '0x0',
    dataLength: size,
    numChildren: 0,
  };
}

/**
 * Export a subtree to JSON (bounded by MAX_EXPORT_NODES, refused clearly beyond) and import one:
 * read the target, plan (dry run), or apply the plan as a job through ZkMutations.
 */
import { createHash } from 'node:crypto';
import zookeeper from 'node-zookeeper-client';
import {
  MAX_EXPORT_NODES,
  encodeZnodeData,
  permissionsToLetters,
  type ExportDocument,
  type ExportNode,
  type ImportPlan,
  type JobSnapshot,
  type SkippedNode,
} from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import type { ZkMutations } from '../zk/mutations.js';
import { toZkError } from '../zk/errors.js';
import type { JobControl } from '../admin/jobs.js';
import { OpError, toOpError } from '../admin/opError.js';
import { forEachPooled } from '../lib/pool.js';
import { planImport, targetPathOf, type TargetState } from './importPlan.js';
import { noReadReason, walkSubtree } from './subtree.js';
import { currentWalkTicket } from './walkBudget.js';
import { importProblems, refusalMessage, withProblems, type ImportCheckContext } from './importChecks.js';

const CONCURRENCY = 8;

export async function exportSubtree(gateway: ZkGateway, mutations: ZkMutations, root: string, maxNodes = MAX_EXPORT_NODES): Promise<ExportDocument> {
  const tree = await walkSubtree(gateway, root, { maxNodes });
  const ticket = currentWalkTicket();
  const nodes: (ExportNode | null)[] = new Array(tree.nodes.length).fill(null);
  const unreadable = new Map<string, string>(tree.unlisted.map((u) => [u.path, u.reason]));
  await forEachPooled(
    tree.nodes.map((n, i) => ({ ...n, i })),
    CONCURRENCY,
    async ({ path, i }) => {
      // Its data and its ACL: two reads more per node, charged to the walk's budget.
      await ticket?.charge(2);
      try {
        const [{ data, stat }, { acl }] = await Promise.all([gateway.getData(path), mutations.getACL(path)]);
        nodes[i] = {
          rel: path === root ? '' : path.slice(root === '/' ? 1 : root.length + 1),
          data: data.toString('base64'),
          encoding: encodeZnodeData(data, data.length).encoding,
          acl: acl.map((a) => ({
            scheme: a.scheme as ExportNode['acl'][number]['scheme'],
            id: a.id,
            perms: permissionsToLetters(a.permissions),
            permissions: a.permissions,
          })),
          stat: {
            version: stat.version,
            aversion: stat.aversion,
            cversion: stat.cversion,
            ctime: stat.ctime,
            mtime: stat.mtime,
            dataLength: stat.dataLength,
            numChildren: stat.numChildren,
            ephemeral: stat.ephemeralOwner !== '0x0',
          },
        };
      } catch (error) {
        // Deleted while exporting: it is simply not in the export.
        const code = toZkError(error).code;
        // Unreadable (NO_AUTH): left out and named, and the export goes on.
        if (code === 'NO_AUTH') {
          if (!unreadable.has(path)) unreadable.set(path, noReadReason(undefined));
        } else if (code !== 'NO_NODE') throw toOpError(error, path);
      }
    },
  );
  const exported = nodes.filter((n): n is ExportNode => n !== null);
  if (exported.length === 0) throw new OpError('NO_AUTH', `${root} cannot be exported: the console may not read it`);
  // Only what was really left out: a node whose children were unlisted but whose data was read is in the export.
  const skipped: SkippedNode[] = tree.nodes
    .filter((n, i) => nodes[i] === null && unreadable.has(n.path))
    .map((n) => ({ path: n.path, reason: unreadable.get(n.path) ?? '' }));
  return {
    format: 'keeper-export',
    version: 1,
    ensemble: gateway.name,
    root,
    exportedAt: Date.now(),
    nodes: exported,
    ...(skipped.length > 0 ? { skipped } : {}),
  };
}

function withHashes(doc: ExportDocument): (ExportNode & { sha256: string; bytes: Buffer })[] {
  return doc.nodes.map((n) => {
    const bytes = Buffer.from(n.data, 'base64');
    return { ...n, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
}

/** Reads what the target holds at every path the import would touch, then plans. */
/** The plan, with the problems that would refuse the import (importChecks.ts). */
export async function planImportFor(
  gateway: ZkGateway,
  root: string,
  doc: ExportDocument,
  overwrite: boolean,
  checks: ImportCheckContext,
): Promise<ImportPlan> {
  const nodes = withHashes(doc);
  const target = new Map<string, TargetState | null>();
  await forEachPooled(nodes, CONCURRENCY, async (node) => {
    const path = targetPathOf(root, node.rel);
    try {
      const { data, stat } = await gateway.getData(path);
      target.set(path, { sha256: createHash('sha256').update(data).digest('hex'), version: stat.version, ephemeral: stat.ephemeralOwner !== '0x0' });
    } catch (error) {
      const code = toZkError(error).code;
      if (code === 'NO_NODE' || code === 'INVALID_PATH') target.set(path, null);
      else throw toOpError(error, path);
    }
  });
  const plan = planImport(root, nodes, target, { overwrite });
  return withProblems(plan, importProblems(root, nodes, plan, checks));
}

export async function runImport(
  gateway: ZkGateway,
  mutations: ZkMutations,
  root: string,
  doc: ExportDocument,
  overwrite: boolean,
  job: JobControl,
  checks: ImportCheckContext,
): Promise<Partial<JobSnapshot> & Pick<JobSnapshot, 'state'>> {
  const plan = await planImportFor(gateway, root, doc, overwrite, checks);
  // Checked again on the fresh plan: refused as a whole, nothing written.
  if ((plan.problemsTotal ?? 0) > 0)
    return { state: 'failed', done: 0, total: 0, error: { code: 'IMPORT_REFUSED', message: refusalMessage(plan.problems ?? [], plan.problemsTotal) } };
  const byPath = new Map(withHashes(doc).map((n) => [targetPathOf(root, n.rel), n]));
  const summary = { created: 0, updated: 0, unchanged: plan.unchanged.length, conflicts: plan.conflicts.length, failed: 0 };
  const total = plan.create.length + plan.update.length;
  const failures: string[] = [];
  let done = 0;
  job.progress({ total, done, summary: { ...summary } });
  const step = (path: string) => {
    done++;
    job.progress({ done, current: path, summary: { ...summary } });
  };
  // Creates one after another, parents first (the plan's order): a child needs its parent.
  for (const path of plan.create) {
    if (job.cancelled) break;
    const node = byPath.get(path);
    if (!node) continue;
    try {
      const acl = node.acl.map((a) => ({ scheme: a.scheme, id: a.id, permissions: a.permissions }));
      await mutations.create(path, node.bytes, zookeeper.CreateMode.PERSISTENT, acl.length > 0 ? acl : undefined);
      summary.created++;
    } catch (error) {
      summary.failed++;
      failures.push(`${path}: ${toOpError(error, path).message}`);
    }
    step(path);
  }
  await forEachPooled(
    plan.update,
    CONCURRENCY,
    async ({ path, version }) => {
      const node = byPath.get(path);
      if (!node) return;
      try {
        await mutations.setData(path, node.bytes, version);
        summary.updated++;
      } catch (error) {
        // BAD_VERSION: changed since the plan was read; left alone, like any conflict.
        summary.failed++;
        failures.push(`${path}: ${toOpError(error, path).message}`);
      }
      step(path);
    },
    () => job.cancelled,
  );
  const state = job.cancelled ? 'cancelled' : summary.failed > 0 ? 'failed' : 'done';
  return {
    state,
    done,
    total,
    summary,
    ...(failures.length > 0
      ? { error: { code: 'IMPORT_INCOMPLETE', message: `${failures.length} of ${total} changes failed: ${failures.slice(0, 5).join('; ')}` } }
      : {}),
  };
}

export function assertImportable(doc: ExportDocument): void {
  for (const node of doc.nodes) {
    if (Buffer.byteLength(node.data, 'base64') > 1_048_576) throw new OpError('DATA_TOO_LARGE', `node "${node.rel}" holds more than 1,048,576 bytes`);
  }
}

/**
 * Export a subtree to JSON (bounded by MAX_EXPORT_NODES, refused clearly beyond) and import one:
 * read the target, plan (dry run), or apply the plan as a job through ZkMutations.
 */
import { createHash } from 'node:crypto';
import zookeeper from 'node-zookeeper-client';
import { MAX_EXPORT_NODES, encodeZnodeData, permissionsToLetters, type ExportDocument, type ExportNode, type ImportPlan, type JobSnapshot } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import type { ZkMutations } from '../zk/mutations.js';
import { toZkError } from '../zk/errors.js';
import type { JobControl } from './jobs.js';
import { OpError, toOpError } from './opError.js';
import { forEachPooled } from './pool.js';
import { planImport, targetPathOf, type TargetState } from './importPlan.js';
import { walkSubtree } from './subtree.js';

const CONCURRENCY = 8;

export async function exportSubtree(gateway: ZkGateway, mutations: ZkMutations, root: string, maxNodes = MAX_EXPORT_NODES): Promise<ExportDocument> {
  const tree = await walkSubtree(gateway, root, { maxNodes });
  const nodes: (ExportNode | null)[] = new Array(tree.nodes.length).fill(null);
  await forEachPooled(
    tree.nodes.map((n, i) => ({ ...n, i })),
    CONCURRENCY,
    async ({ path, i }) => {
      try {
        const [{ data, stat }, { acl }] = await Promise.all([gateway.getData(path), mutations.getACL(path)]);
        nodes[i] = {
          rel: path === root ? '' : path.slice(root === '/' ? 1 : root.length + 1),
          data: data.toString('base64'),
          encoding: encodeZnodeData(data, data.length).encoding,
          acl: acl.map((a) => ({ scheme: a.scheme as ExportNode['acl'][number]['scheme'], id: a.id, perms: permissionsToLetters(a.permissions), permissions: a.permissions })),
          stat: { version: stat.version, aversion: stat.aversion, cversion: stat.cversion, ctime: stat.ctime, mtime: stat.mtime, dataLength: stat.dataLength, numChildren: stat.numChildren, ephemeral: stat.ephemeralOwner !== '0x0' },
        };
      } catch (error) {
        // Deleted while exporting: it is simply not in the export.
        if (toZkError(error).code !== 'NO_NODE') throw toOpError(error, path);
      }
    },
  );
  return { format: 'keeper-export', version: 1, ensemble: gateway.name, root, exportedAt: Date.now(), nodes: nodes.filter((n): n is ExportNode => n !== null) };
}

function withHashes(doc: ExportDocument): (ExportNode & { sha256: string; bytes: Buffer })[] {
  return doc.nodes.map((n) => {
    const bytes = Buffer.from(n.data, 'base64');
    return { ...n, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
}

/** Reads what the target holds at every path the import would touch, then plans. */
export async function planImportFor(gateway: ZkGateway, root: string, doc: ExportDocument, overwrite: boolean): Promise<ImportPlan> {
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
  return planImport(root, nodes, target, { overwrite });
}

export async function runImport(gateway: ZkGateway, mutations: ZkMutations, root: string, doc: ExportDocument, overwrite: boolean, job: JobControl): Promise<Partial<JobSnapshot> & Pick<JobSnapshot, 'state'>> {
  const plan = await planImportFor(gateway, root, doc, overwrite);
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
    ...(failures.length > 0 ? { error: { code: 'IMPORT_INCOMPLETE', message: `${failures.length} of ${total} changes failed: ${failures.slice(0, 5).join('; ')}` } } : {}),
  };
}

export function assertImportable(doc: ExportDocument): void {
  for (const node of doc.nodes) {
    if (Buffer.byteLength(node.data, 'base64') > 1_048_576) throw new OpError('DATA_TOO_LARGE', `node "${node.rel}" holds more than 1,048,576 bytes`);
  }
}

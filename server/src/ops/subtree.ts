/**
 * Walks a subtree breadth-first through the gateway (retried reads, bounded concurrency),
 * for counting before a recursive delete, exporting, and reading back what remains.
 */
import { joinPath, type SkippedNode } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import { toZkError } from '../zk/errors.js';
import { OpError } from '../admin/opError.js';
import { currentWalkTicket } from './walkBudget.js';

export interface SubtreeNode {
  path: string;
  depth: number;
}

export interface WalkOptions {
  /** Past this many nodes: TOO_MANY_NODES (or, with `truncate`, stop and say so). */
  maxNodes: number;
  truncate?: boolean;
  concurrency?: number;
  deadlineMs?: number;
}

export interface Subtree {
  nodes: SubtreeNode[];
  truncated: boolean;
  /** Nodes whose children the console may not list (NO_AUTH): in `nodes`, but nothing below them is. */
  unlisted: UnlistedNode[];
}

/** `children` from exists (no permission needed); null if even that failed. */
export type UnlistedNode = SkippedNode & { children: number | null };

/** Why a node was not listed; `children` from exists, which needs no permission. */
export function noReadReason(children: number | undefined): string {
  const below =
    children === undefined
      ? 'nothing below it was seen'
      : children === 0
        ? 'it has no children'
        : `its ${children} ${children === 1 ? 'child' : 'children'} and everything below were not seen`;
  return `the console may not read it (its ACL grants the console no read); ${below}`;
}

/** Root first, then each level; a node deleted while walking is simply left out. */
export async function walkSubtree(gateway: ZkGateway, root: string, options: WalkOptions): Promise<Subtree> {
  const concurrency = options.concurrency ?? 8;
  const nodes: SubtreeNode[] = [];
  let level: string[] = [root];
  let depth = 0;
  let truncated = false;
  const unlisted: UnlistedNode[] = [];
  // Run under a walk budget (walkBudget.ts), every read is charged to it: the walk slows down
  // when the caller's budget runs low, instead of loading ZooKeeper as fast as it can.
  const ticket = currentWalkTicket();
  await ticket?.charge(1);
  // The root must exist; below it, a vanished node is a race, not an error.
  await gateway.exists(root).then((stat) => {
    if (!stat) throw new OpError('NO_NODE', `${root} does not exist`);
  });
  nodes.push({ path: root, depth: 0 });
  while (level.length > 0 && !truncated) {
    const next: string[] = [];
    let index = 0;
    const worker = async () => {
      while (index < level.length && !truncated) {
        const parent = level[index++] as string;
        await ticket?.charge(1);
        let children: string[];
        try {
          children = (await gateway.getChildren(parent, options.deadlineMs ? { deadlineMs: options.deadlineMs } : {})).children;
        } catch (error) {
          if (toZkError(error).code === 'NO_NODE') continue;
          // One unreadable node must not fail the whole walk: report it and go on.
          if (toZkError(error).code === 'NO_AUTH') {
            const stat = await gateway.exists(parent).catch(() => null);
            unlisted.push({ path: parent, reason: noReadReason(stat?.numChildren), children: stat?.numChildren ?? null });
            continue;
          }
          throw error;
        }
        for (const child of children) {
          if (nodes.length >= options.maxNodes) {
            if (!options.truncate) throw new OpError('TOO_MANY_NODES', `${root} has more than ${options.maxNodes} nodes; pick a smaller subtree`);
            truncated = true;
            break;
          }
          const path = joinPath(parent, child);
          nodes.push({ path, depth: depth + 1 });
          next.push(path);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, level.length) }, worker));
    level = next;
    depth++;
  }
  return { nodes, truncated, unlisted };
}

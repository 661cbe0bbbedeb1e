/**
 * Walks a subtree breadth-first through the gateway (retried reads, bounded concurrency),
 * for counting before a recursive delete, exporting, and reading back what remains.
 */
import { joinPath } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import { toZkError } from '../zk/errors.js';
import { OpError } from './opError.js';

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
}

/** Root first, then each level; a node deleted while walking is simply left out. */
export async function walkSubtree(gateway: ZkGateway, root: string, options: WalkOptions): Promise<Subtree> {
  const concurrency = options.concurrency ?? 8;
  const nodes: SubtreeNode[] = [];
  let level: string[] = [root];
  let depth = 0;
  let truncated = false;
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
        let children: string[];
        try {
          children = (await gateway.getChildren(parent, options.deadlineMs ? { deadlineMs: options.deadlineMs } : {})).children;
        } catch (error) {
          if (toZkError(error).code === 'NO_NODE') continue;
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
  return { nodes, truncated };
}

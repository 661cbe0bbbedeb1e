/**
 * A znode through the API: its stat, its value and a page of its children in natural order.
 * When a watch already holds the znode (a browser has it open), the answer comes from the
 * watch registry with no ZooKeeper call; otherwise from a getData and a getChildren sent together.
 */
import { encodeZnodeData, type ZnodeAnswer } from '@keeper/shared';
import type { ZkGateway } from '../zk/gateway.js';
import type { ChildrenPageCache } from './childrenPageCache.js';

export type ZnodeSource = Pick<ZkGateway, 'name' | 'heldZnode' | 'getData' | 'getChildren'>;

export async function readZnodePage(gateway: ZnodeSource, pages: ChildrenPageCache, path: string, offset: number, limit: number): Promise<ZnodeAnswer> {
  const key = `${gateway.name}\0${path}`;
  const held = gateway.heldZnode(path);
  if (held) {
    const names = pages.page(key, held.childrenPzxid, held.children, offset, limit);
    return { ensemble: gateway.name, path, stat: held.stat, data: held.data, children: { total: held.children.length, offset, limit, names } };
  }
  const [node, children] = await Promise.all([gateway.getData(path), gateway.getChildren(path)]);
  const names = pages.page(key, children.stat.pzxid, children.children, offset, limit);
  return {
    ensemble: gateway.name,
    path,
    stat: node.stat,
    data: encodeZnodeData(node.data),
    children: { total: children.children.length, offset, limit, names },
  };
}

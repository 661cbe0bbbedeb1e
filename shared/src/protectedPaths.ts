/**
 * What Keeper leaves to ZooKeeper under /zookeeper: one rule for the server, which refuses, and
 * the web, which does not offer what would be refused. ZooKeeper itself lets any client create
 * nodes there, but they sit among its own (/zookeeper/config, /zookeeper/quota) and Keeper
 * will not delete anything ZooKeeper owns. So Keeper refuses to create (or import) anything at
 * or under /zookeeper: what it could create there it could not then manage. Quotas
 * (/zookeeper/quota/...) are ZooKeeper's to write, through `setquota`.
 *
 * A stray node someone else put under /zookeeper (zkCli `create /zookeeper/evil`) is not
 * ZooKeeper's: Keeper may delete it, so such a mistake can be cleaned up from the console.
 */
const ZOOKEEPER_OWN = ['/zookeeper', '/zookeeper/config', '/zookeeper/quota'];

/** Deleting these would break the ensemble or is impossible; refused before asking ZooKeeper. */
export function isProtectedFromDelete(path: string): boolean {
  return path === '/' || ZOOKEEPER_OWN.includes(path) || path.startsWith('/zookeeper/quota/');
}

/** /zookeeper and everything under it (not /zookeeperish). */
export function isUnderZookeeper(path: string): boolean {
  return path === '/zookeeper' || path.startsWith('/zookeeper/');
}

/** Nothing is created at or under /zookeeper (nor at "/", which always exists). */
export function isProtectedFromCreate(path: string): boolean {
  return path === '/' || isUnderZookeeper(path);
}

export const CREATE_UNDER_ZOOKEEPER_REFUSED =
  "is under /zookeeper, ZooKeeper's own subtree: Keeper does not create nodes there (quotas are set with zkCli's setquota)";

/**
 * The recipes Keeper recognizes by the names of their nodes (notes: "Lock and recipe nodes").
 * Each definition says how to read one child name, how its contenders hold, and how its
 * waiters wait: only recipes whose waiters set a data watch (exists/getData) on a node of the
 * lock directory can have a contender proven leaked, because `wchp` lists data watches only.
 *
 * Order matters: recognition takes the first definition that reads every child, so the
 * specific ones (Curator's protected names, kazoo's uuid prefixes) come before the
 * ZooKeeper recipes' looser `<anything>-lock-<seq>`.
 */
import type { ContenderRole, HoldingRule, RecipeKind, RecipeLibrary } from './schemas.js';
import { sequenceOf } from './sequence.js';

export interface ParsedName {
  /** The 10-digit suffix; null for recipes whose nodes have none. */
  sequence: number | null;
  role: ContenderRole;
  /** Queues: lower is taken first (kazoo's `entry-<priority>-<seq>`). */
  priority?: number;
}

/** Where the directory is: some recipes are told apart by the nodes they create beside it. */
export interface DirectoryContext {
  path: string;
  /** Last segment of the path. */
  base: string;
  /** Names of the directory's siblings (its parent's children); null when not fetched. */
  siblings: ReadonlySet<string> | null;
}

/**
 * How a recipe's waiters wait: `data` (an exists/getData watch on a node in the directory,
 * which wchp lists), `unlisted` (a child watch on the directory, or polling: nothing wchp
 * lists, so the absence of a watch proves nothing) or `none` (nobody waits in the directory).
 */
export type WaiterWatch = 'data' | 'unlisted' | 'none';

export interface RecipeDefinition {
  id: string;
  label: string;
  library: RecipeLibrary;
  kind: RecipeKind;
  holding: HoldingRule;
  waiterWatch: WaiterWatch;
  /** This recipe's reading of one child name, or null when the name is not one of its nodes. */
  parse(name: string): ParsedName | null;
  /** Conditions on the surroundings (a sibling the recipe creates); default: anywhere. */
  appliesTo?(dir: DirectoryContext): boolean;
  /** A sentence when the surroundings say more ("the lock kazoo's Semaphore /x takes"). */
  note?(dir: DirectoryContext): string | null;
  /** A semaphore's N fixed by the definition (an in-house pattern's `permits`). */
  permits?: number;
  /** kazoo's Semaphore records N as the text of the semaphore node's own data. */
  permitsInDirectoryData?: boolean;
}

const UUID36 = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** Curator's protected mode prefixes the node name with `_c_<uuid>-`; older versions and some recipes do not. */
const CURATOR = `(?:_c_${UUID36}-)?`;
const SEQ = '\\d{10}';

/** A parse for names that must match `pattern` and end in the sequence; `role` may depend on the match. */
function sequential(pattern: RegExp, role: ContenderRole | ((m: RegExpExecArray) => ContenderRole)): (name: string) => ParsedName | null {
  return (name) => {
    const m = pattern.exec(name);
    if (!m) return null;
    const sequence = sequenceOf(name);
    if (sequence === null) return null;
    return { sequence, role: typeof role === 'function' ? role(m) : role };
  };
}

function siblingHas(dir: DirectoryContext, name: string): boolean {
  return dir.siblings?.has(name) ?? false;
}

/** `/jobs/pool-__lock__` is the lock kazoo's Semaphore `/jobs/pool` takes before it hands out a lease. */
const KAZOO_SEMAPHORE_LOCK_SUFFIX = '-__lock__';
function kazooLockNote(dir: DirectoryContext): string | null {
  if (!dir.path.endsWith(KAZOO_SEMAPHORE_LOCK_SUFFIX)) return null;
  const semaphore = dir.path.slice(0, -KAZOO_SEMAPHORE_LOCK_SUFFIX.length);
  return `The lock kazoo's Semaphore ${semaphore} takes to hand out a lease: its holder is the next to get one.`;
}

function curatorSemaphorePart(dir: DirectoryContext, part: 'locks' | 'leases', other: 'locks' | 'leases'): boolean {
  return dir.base === part && siblingHas(dir, other);
}

function curatorMutexNote(dir: DirectoryContext): string | null {
  if (!curatorSemaphorePart(dir, 'locks', 'leases')) return null;
  return `The lock Curator's InterProcessSemaphoreV2 ${parentOf(dir.path)} takes to hand out a lease: its holder is the next to get one.`;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

const KAZOO_ENTRY = /^entry-(-?\d+)-\d{10}$/;
function kazooEntry(role: ContenderRole): (name: string) => ParsedName | null {
  return (name) => {
    const m = KAZOO_ENTRY.exec(name);
    const sequence = sequenceOf(name);
    if (!m || sequence === null) return null;
    return { sequence, role, priority: Number(m[1]) };
  };
}

export const BUILT_IN_RECIPES: readonly RecipeDefinition[] = [
  // ---- kazoo 2.8 (kazoo/recipe/lock.py, party.py, queue.py) ----
  {
    // kazoo's Election is a Lock on the election path: the same nodes.
    id: 'kazoo.Lock',
    label: 'kazoo Lock (or Election)',
    library: 'kazoo',
    kind: 'exclusive',
    holding: 'lowest',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^[0-9a-f]{32}__lock__${SEQ}$`), 'contender'),
    note: kazooLockNote,
  },
  {
    // WriteLock writes `__lock__` like Lock; ReadLock `__rlock__`.
    id: 'kazoo.ReadWriteLock',
    label: 'kazoo ReadLock/WriteLock',
    library: 'kazoo',
    kind: 'readWrite',
    holding: 'readersBeforeWriter',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^[0-9a-f]{32}__(r?)lock__${SEQ}$`), (m) => (m[1] ? 'reader' : 'writer')),
  },
  {
    id: 'kazoo.Party',
    label: 'kazoo Party',
    library: 'kazoo',
    kind: 'group',
    holding: 'all',
    waiterWatch: 'none',
    parse: (name) => (/^[0-9a-f]{32}__party__$/.test(name) ? { sequence: null, role: 'member' } : null),
  },
  {
    // Leases are `<uuid4hex>` with no sequence; one exists only while it is held. The sibling
    // `<path>-__lock__` tells them from any directory of hex names.
    id: 'kazoo.Semaphore',
    label: 'kazoo Semaphore',
    library: 'kazoo',
    kind: 'semaphore',
    holding: 'all',
    waiterWatch: 'none',
    parse: (name) => (/^[0-9a-f]{32}$/.test(name) ? { sequence: null, role: 'lease' } : null),
    appliesTo: (dir) => siblingHas(dir, `${dir.base}${KAZOO_SEMAPHORE_LOCK_SUFFIX}`),
    note: (dir) => `Waiters queue in the lock ${dir.path}${KAZOO_SEMAPHORE_LOCK_SUFFIX}, not here.`,
    permitsInDirectoryData: true,
  },
  {
    // LockingQueue keeps `<path>/entries` and `<path>/taken`; a taken node (ephemeral, named
    // after its entry) is a consumer's hold on that entry.
    id: 'kazoo.LockingQueue.taken',
    label: 'kazoo LockingQueue (taken entries)',
    library: 'kazoo',
    kind: 'queue',
    holding: 'all',
    waiterWatch: 'none',
    parse: kazooEntry('contender'),
    appliesTo: (dir) => dir.base === 'taken' && siblingHas(dir, 'entries'),
    note: (dir) => `Each node is a consumer's hold on the entry of the same name in ${parentOf(dir.path)}/entries.`,
  },
  {
    id: 'kazoo.LockingQueue',
    label: 'kazoo LockingQueue (entries)',
    library: 'kazoo',
    kind: 'queue',
    holding: 'none',
    waiterWatch: 'none',
    parse: kazooEntry('item'),
    appliesTo: (dir) => dir.base === 'entries' && siblingHas(dir, 'taken'),
  },
  {
    id: 'kazoo.Queue',
    label: 'kazoo Queue',
    library: 'kazoo',
    kind: 'queue',
    holding: 'none',
    waiterWatch: 'none',
    parse: kazooEntry('item'),
  },

  // ---- Curator (curator-recipes: locks/, leader/) ----
  {
    // LeaderSelector is an InterProcessMutex on the leader path: the same nodes.
    id: 'curator.InterProcessMutex',
    label: 'Curator InterProcessMutex (or LeaderSelector)',
    library: 'curator',
    kind: 'exclusive',
    holding: 'lowest',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^_c_${UUID36}-lock-${SEQ}$`), 'contender'),
    note: curatorMutexNote,
  },
  {
    id: 'curator.InterProcessReadWriteLock',
    label: 'Curator InterProcessReadWriteLock',
    library: 'curator',
    kind: 'readWrite',
    holding: 'readersBeforeWriter',
    // A waiting reader watches the first writer; a waiting writer its predecessor.
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^${CURATOR}__(READ|WRIT)__${SEQ}$`), (m) => (m[1] === 'READ' ? 'reader' : 'writer')),
  },
  {
    // Leases under `<path>/leases`, the lock under `<path>/locks`. Curator does not record N.
    // A lease over N waits on a CHILD watch of the leases directory, which wchp does not list.
    id: 'curator.InterProcessSemaphoreV2',
    label: 'Curator InterProcessSemaphoreV2',
    library: 'curator',
    kind: 'semaphore',
    holding: 'firstN',
    waiterWatch: 'unlisted',
    parse: sequential(new RegExp(`^${CURATOR}lease-${SEQ}$`), 'lease'),
    note: (dir) => (curatorSemaphorePart(dir, 'leases', 'locks') ? `Contenders for a lease queue in ${parentOf(dir.path)}/locks first.` : null),
  },
  {
    id: 'curator.LeaderLatch',
    label: 'Curator LeaderLatch',
    library: 'curator',
    kind: 'election',
    holding: 'lowest',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^${CURATOR}latch-${SEQ}$`), 'contender'),
  },

  // ---- ZooKeeper's own recipes (zookeeper-recipes-*, and the recipes page) ----
  {
    // recipes-lock WriteLock.java: `x-<sessionId>-<seq>`, waiters exists() their predecessor.
    id: 'zookeeper.WriteLock',
    label: 'ZooKeeper WriteLock (recipes-lock)',
    library: 'zookeeper',
    kind: 'exclusive',
    holding: 'lowest',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^x--?\\d+-${SEQ}$`), 'contender'),
  },
  {
    // The recipes page's `guid-lock-<seq>`; Curator's unprotected `lock-<seq>` reads the same.
    id: 'zookeeper.Lock',
    label: 'ZooKeeper lock recipe',
    library: 'zookeeper',
    kind: 'exclusive',
    holding: 'lowest',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^(?:.+-)?lock-${SEQ}$`), 'contender'),
  },
  {
    id: 'zookeeper.SharedLock',
    label: 'ZooKeeper shared lock recipe',
    library: 'zookeeper',
    kind: 'readWrite',
    holding: 'readersBeforeWriter',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^(?:.+-)?(read|write)-${SEQ}$`), (m) => (m[1] === 'read' ? 'reader' : 'writer')),
  },
  {
    // recipes-election LeaderElectionSupport: `n_<seq>`; the recipes page: `guid-n_<seq>`.
    id: 'zookeeper.Election',
    label: 'ZooKeeper leader election',
    library: 'zookeeper',
    kind: 'election',
    holding: 'lowest',
    waiterWatch: 'data',
    parse: sequential(new RegExp(`^(?:.+-)?n_${SEQ}$`), 'contender'),
  },
  {
    // recipes-queue DistributedQueue: `qn-<seq>`, persistent, consumers take the lowest.
    id: 'zookeeper.Queue',
    label: 'ZooKeeper queue (recipes-queue)',
    library: 'zookeeper',
    kind: 'queue',
    holding: 'none',
    waiterWatch: 'none',
    parse: sequential(new RegExp(`^qn-${SEQ}$`), 'item'),
  },
];

/**
 * The config file's `locks` section: lock roots to watch at once, in-house recipes declared
 * by the names of their nodes, semaphore sizes Curator does not record, and the thresholds.
 *
 *   "locks": {
 *     "roots": ["/app/locks"],
 *     "patterns": [
 *       { "name": "jobs", "glob": "job-*", "kind": "exclusive", "waitersWatchPredecessor": true },
 *       { "name": "rw", "regex": "^(r|w)-[0-9]{10}$", "kind": "readWrite", "readerMarker": "r-", "writerMarker": "w-" },
 *       { "name": "pool", "glob": "slot-*", "kind": "semaphore", "permits": 4, "under": "/app/pools" }
 *     ],
 *     "permits": { "/app/sem/leases": 3 },
 *     "herdMinWatchers": 10,
 *     "heldLongMs": 600000,
 *     "maxTracked": 1000, "maxOpened": 100, "openedIdleMs": 300000, "gatherIntervalMs": 15000,
 *     "scanMaxRequests": 200000, "scanDeadlineMs": 600000, "scanMaxChildrenDescended": 10000
 *   }
 *
 * A pattern matches whole child names (glob: `*` any run, `?` one character; or a regex).
 * Every in-house node must end in ZooKeeper's 10-digit sequence: Keeper orders by it.
 */
import { z } from 'zod/mini';
import { isValidPath } from '../paths.js';
import { sequenceOf } from './sequence.js';
import type { RecipeDefinition, ParsedName } from './recipes.js';
import type { ContenderRole, HoldingRule } from './schemas.js';

export const LOCK_DEFAULTS = {
  /** Sessions watching one path before it is called a herd (issue 12, item 6). */
  herdMinWatchers: 10,
  /** A holder past this is flagged `held-long`. */
  heldLongMs: 10 * 60_000,
  /** Lock directories Keeper watches at once from roots' children and scan finds. */
  maxTracked: 1_000,
  /** Lock directories watched because someone opened their page or asked the API for them: a quota of their own, so viewers cannot fill the tracked set. */
  maxOpened: 100,
  /** An opened directory nobody looks at (no subscriber, no request) for this long is let go. */
  openedIdleMs: 5 * 60_000,
  /** wchp + cons on every member this often while someone looks at locks (>= LEAK_MIN_GAP_MS apart). */
  gatherIntervalMs: 15_000,
  /** A scan stops after this many ZooKeeper requests... */
  scanMaxRequests: 200_000,
  /** ...or this long... */
  scanDeadlineMs: 10 * 60_000,
  /** ...and does not descend into a directory with more children than this that is not a lock. */
  scanMaxChildrenDescended: 10_000,
} as const;

export const IN_HOUSE_KINDS = ['exclusive', 'readWrite', 'semaphore', 'election', 'queue'] as const;

const zkPath = z.string().check(z.refine(isValidPath, 'must be a ZooKeeper path: absolute, no trailing /'));

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

export const lockPatternSchema = z
  .strictObject({
    /** Shown as the recipe's label; its id is `config:<name>`. */
    name: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,62}$/, 'must be 1-63 letters, digits, spaces, ".", "_" or "-"')),
    glob: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    regex: z.optional(z.string().check(z.minLength(1), z.maxLength(500), z.refine(compiles, 'is not a valid regular expression'))),
    kind: z.enum(IN_HOUSE_KINDS),
    /** readWrite: a reader's name contains this, a writer's the other. */
    readerMarker: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
    writerMarker: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
    /** semaphore: N, the leases that hold at once. */
    permits: z.optional(z.int().check(z.gte(1), z.lte(1_000_000))),
    /** Only for directories at or under this path. */
    under: z.optional(zkPath),
    /**
     * Waiters set an exists/getData watch on a node of the directory (the ZooKeeper lock
     * recipe's way). Only then can a contender be called leaked: other ways of waiting
     * (child watches, polling) leave nothing in wchp to prove a waiter alive.
     */
    waitersWatchPredecessor: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((p, ctx) => {
      if ((p.glob === undefined) === (p.regex === undefined))
        ctx.addIssue({ code: 'custom', path: ['glob'], message: 'give exactly one of "glob" and "regex"' });
      const markers = p.readerMarker !== undefined || p.writerMarker !== undefined;
      if (p.kind === 'readWrite') {
        if (p.readerMarker === undefined) ctx.addIssue({ code: 'custom', path: ['readerMarker'], message: 'a readWrite pattern needs readerMarker' });
        if (p.writerMarker === undefined) ctx.addIssue({ code: 'custom', path: ['writerMarker'], message: 'a readWrite pattern needs writerMarker' });
        if (p.readerMarker !== undefined && p.readerMarker === p.writerMarker)
          ctx.addIssue({ code: 'custom', path: ['writerMarker'], message: 'must differ from readerMarker' });
      } else if (markers) {
        ctx.addIssue({ code: 'custom', path: ['readerMarker'], message: 'reader and writer markers are for kind "readWrite" only' });
      }
      if (p.permits !== undefined && p.kind !== 'semaphore')
        ctx.addIssue({ code: 'custom', path: ['permits'], message: 'permits is for kind "semaphore" only' });
    }),
  );
export type LockPattern = z.infer<typeof lockPatternSchema>;

export const locksConfigSchema = z.strictObject({
  /** Lock roots watched from the start (their child directories are checked for recipes). */
  roots: z.optional(z.array(zkPath).check(z.maxLength(1_000))),
  patterns: z.optional(
    z.array(lockPatternSchema).check(
      z.maxLength(100),
      z.superRefine((list, ctx) => {
        const seen = new Set<string>();
        list.forEach((p, i) => {
          if (seen.has(p.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate name "${p.name}"` });
          seen.add(p.name);
        });
      }),
    ),
  ),
  /** N for semaphores whose recipe does not record it (Curator's InterProcessSemaphoreV2), by leases directory. */
  permits: z.optional(z.record(zkPath, z.int().check(z.gte(1), z.lte(1_000_000)))),
  herdMinWatchers: z.optional(z.int().check(z.gte(2), z.lte(1_000_000))),
  maxTracked: z.optional(z.int().check(z.gte(1), z.lte(100_000))),
  maxOpened: z.optional(z.int().check(z.gte(1), z.lte(10_000))),
  openedIdleMs: z.optional(z.number().check(z.int(), z.gte(10_000), z.lte(24 * 3_600_000))),
  gatherIntervalMs: z.optional(z.int().check(z.gte(10_000), z.lte(3_600_000))),
  scanMaxRequests: z.optional(z.int().check(z.gte(100), z.lte(10_000_000))),
  scanDeadlineMs: z.optional(z.number().check(z.int(), z.gte(1_000), z.lte(24 * 3_600_000))),
  scanMaxChildrenDescended: z.optional(z.int().check(z.gte(10), z.lte(10_000_000))),
  heldLongMs: z.optional(z.number().check(z.int(), z.gte(1_000), z.lte(30 * 24 * 3_600_000))),
});
export type LocksConfig = z.infer<typeof locksConfigSchema>;

/** A glob over one child name: `*` any run of characters, `?` one; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const HOLDING_OF: Record<LockPattern['kind'], HoldingRule> = {
  exclusive: 'lowest',
  election: 'lowest',
  readWrite: 'readersBeforeWriter',
  semaphore: 'firstN',
  queue: 'none',
};

const ROLE_OF: Record<Exclude<LockPattern['kind'], 'readWrite'>, ContenderRole> = {
  exclusive: 'contender',
  election: 'contender',
  semaphore: 'lease',
  queue: 'item',
};

function isUnder(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}

/** An in-house pattern as a recipe definition (a validated pattern: lockPatternSchema.parse first). */
export function compileLockPattern(p: LockPattern): RecipeDefinition {
  const matcher = p.regex !== undefined ? new RegExp(p.regex) : globToRegExp(p.glob ?? '');
  const roleOf = (name: string): ContenderRole | null => {
    if (p.kind !== 'readWrite') return ROLE_OF[p.kind];
    const reader = name.includes(p.readerMarker ?? '');
    const writer = name.includes(p.writerMarker ?? '');
    // A name with both markers or neither says nothing about what it is.
    return reader === writer ? null : reader ? 'reader' : 'writer';
  };
  const parse = (name: string): ParsedName | null => {
    if (!matcher.test(name)) return null;
    const sequence = sequenceOf(name);
    const role = roleOf(name);
    return sequence === null || role === null ? null : { sequence, role };
  };
  const under = p.under;
  return {
    id: `config:${p.name}`,
    label: p.name,
    library: 'config',
    kind: p.kind,
    holding: HOLDING_OF[p.kind],
    waiterWatch: p.kind === 'queue' ? 'none' : p.waitersWatchPredecessor ? 'data' : 'unlisted',
    parse,
    ...(under !== undefined ? { appliesTo: (dir) => isUnder(dir.path, under) } : {}),
    ...(p.permits !== undefined ? { permits: p.permits } : {}),
  };
}

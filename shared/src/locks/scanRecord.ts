/**
 * A lock scan as kept when several Keeper replicas share their state (docs/operating/replicas.md): one
 * record per scan under `<root>/ensembles/<ensemble id>/lock-scans/<id>`, written by the replica
 * running it (its progress about once a second, then its result) and read by every replica, so
 * a scan started on one is listed and shown by all. When the running replica's ZooKeeper session
 * ends (killed, cut off), another takes the scan over: it records the hand-over and scans again
 * from the start, since a dead replica's partial walk is not a result (it stopped at some point
 * of a breadth-first walk nobody can continue). A single Keeper keeps the same records in memory.
 */
import { z } from 'zod/mini';
import { scanSkipSchema, type LastScan } from './schemas.js';

/** A Keeper replica as a scan names it: its registry id and `<host>:<port>`. */
export const scanReplicaSchema = z.object({ replica: z.string().check(z.maxLength(64)), name: z.string().check(z.maxLength(300)) });
export type ScanReplica = z.infer<typeof scanReplicaSchema>;

/** One replica taking over a scan whose replica's session ended. */
export const scanHandoverSchema = z.object({
  /** ZooKeeper's time of the new owner's znode (its ctime): when it took over. */
  at: z.number(),
  from: z.nullable(scanReplicaSchema),
  to: scanReplicaSchema,
  /** How far the replica that died had got: set aside, never shown as the result. */
  reached: z.object({ visited: z.int(), found: z.int(), requests: z.int() }),
  /** "replica b:8080 took over at 14:02:31 after replica a:8080's session ended; ..." */
  sentence: z.string().check(z.maxLength(1_000)),
});
export type ScanHandover = z.infer<typeof scanHandoverSchema>;

/**
 * An admin's request, made on any replica, that the replica running the scan stop it: written
 * into the scan's record by compare-and-set; the running replica follows its record with a watch
 * and stops within about a second, then stores the scan `cancelled` with the request kept.
 */
export const scanCancelRequestSchema = z.object({
  /** The admin who asked. */
  by: z.string().check(z.maxLength(300)),
  /** The replica that was asked (and wrote the request). */
  replica: scanReplicaSchema,
  /** That replica's clock when it wrote the request. */
  at: z.number(),
});
export type ScanCancelRequest = z.infer<typeof scanCancelRequestSchema>;

export const MAX_SCAN_HANDOVERS = 10;
/** Scans kept per ensemble (the running one included); the oldest finished are pruned. */
export const LOCK_SCANS_KEPT = 10;
/** A scan's id: its znode's name. */
export const LOCK_SCAN_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const lockScanRecordSchema = z.object({
  id: z.string().check(z.regex(LOCK_SCAN_ID)),
  /** The ensemble's configured name when it was started (for people; records are keyed by the ensemble's identity). */
  ensemble: z.string().check(z.maxLength(300)),
  path: z.string().check(z.maxLength(4_096)),
  state: z.enum(['running', 'done', 'cancelled', 'failed']),
  startedBy: z.string().check(z.maxLength(300)),
  startedAt: z.number(),
  finishedAt: z.nullable(z.number()),
  /** The running replica's clock at its last write. */
  updatedAt: z.number(),
  visited: z.int(),
  /** Lock directories found in all; `foundPaths` lists the first of them (the record is capped at 64 KiB). */
  found: z.int(),
  foundPaths: z.array(z.string()),
  requests: z.int(),
  skipped: z.array(scanSkipSchema),
  skippedTotal: z.int(),
  error: z.nullable(z.object({ code: z.string(), message: z.string() })),
  /** The replica running (or that ran) it, since ZooKeeper's time of its owner znode; null for a single Keeper. */
  runBy: z.nullable(z.extend(scanReplicaSchema, { since: z.number() })),
  handovers: z.array(scanHandoverSchema).check(z.maxLength(MAX_SCAN_HANDOVERS)),
  /** A cancel asked for on any replica (absent in records stored before it existed). */
  cancelRequest: z.nullish(scanCancelRequestSchema),
});
export type LockScanRecord = z.infer<typeof lockScanRecordSchema>;

/** GET /api/ensembles/<name>/lock-scans: newest first. */
export const lockScansAnswerSchema = z.object({
  ensemble: z.string(),
  /** True when the scans are the replicas' shared ones (home ensemble); false: this Keeper's own, in memory. */
  shared: z.boolean(),
  scans: z.array(lockScanRecordSchema),
});
export type LockScansAnswer = z.infer<typeof lockScansAnswerSchema>;

/** How long a cancel waits by default, and at most, for the running replica's record to say the scan stopped. */
export const LOCK_SCAN_CANCEL_WAIT_MS = { default: 5_000, max: 10_000 } as const;

/** POST /api/ensembles/<name>/locks/scan/cancel: the scan's id (GET .../lock-scans lists it), and how long to wait for its stop. */
export const lockScanCancelBodySchema = z.strictObject({
  scanId: z.string().check(z.regex(LOCK_SCAN_ID)),
  waitMs: z.optional(z.int().check(z.gte(0), z.lte(LOCK_SCAN_CANCEL_WAIT_MS.max))),
});
export type LockScanCancelBody = z.infer<typeof lockScanCancelBodySchema>;

/**
 * What a cancel did, said truthfully: `cancelled` only once the scan's record (written by the
 * replica that ran it) says it stopped; `requested` when that replica had not confirmed within the
 * request's wait (the record will say when it does); `finished` when the scan had ended already.
 */
export const lockScanCancelAnswerSchema = z.object({
  outcome: z.enum(['cancelled', 'requested', 'finished']),
  /** "cancel requested; replica a:8080 stopped it at 14:02:31 UTC" */
  message: z.string(),
  scan: lockScanRecordSchema,
});
export type LockScanCancelAnswer = z.infer<typeof lockScanCancelAnswerSchema>;

const clock = (at: number): string => new Date(at).toISOString().slice(11, 19);

/** "replica b:8080 took over at 14:02:31 UTC after replica a:8080's session ended; ..." */
export function scanHandoverSentence(h: Pick<ScanHandover, 'at' | 'from' | 'to' | 'reached'>, path: string): string {
  const before = h.from ? `replica ${h.from.name}'s session ended` : 'the session of the Keeper that ran it ended';
  return (
    `replica ${h.to.name} took over at ${clock(h.at)} UTC after ${before}; ` +
    `its partial walk (${h.reached.visited} znodes listed, ${h.reached.found} found) is set aside and the scan starts again from ${path}`
  );
}

/** "replica a:8080 stopped it at 14:02:31 UTC (asked by admin on replica b:8080)": what a finished scan says of its cancel. */
export function scanCancelSentence(scan: LockScanRecord): string {
  const runner = scan.runBy ? `replica ${scan.runBy.name}` : 'Keeper';
  const asked = scan.cancelRequest ? ` (asked by ${scan.cancelRequest.by} on replica ${scan.cancelRequest.replica.name})` : '';
  if (scan.state === 'cancelled') return `${runner} stopped it at ${clock(scan.finishedAt ?? scan.updatedAt)} UTC${asked}`;
  return `it had ended already (${scan.state} at ${clock(scan.finishedAt ?? scan.updatedAt)} UTC)`;
}

/** The scan now run by `to`, from the start: the counts of the replica that died go into the hand-over, not the result. */
export function recordScanHandover(scan: LockScanRecord, to: ScanReplica, at: number): LockScanRecord {
  const from = scan.runBy ? { replica: scan.runBy.replica, name: scan.runBy.name } : null;
  const reached = { visited: scan.visited, found: scan.found, requests: scan.requests };
  const handover: ScanHandover = { at, from, to, reached, sentence: scanHandoverSentence({ at, from, to, reached }, scan.path) };
  return {
    ...scan,
    state: 'running',
    finishedAt: null,
    updatedAt: Math.max(scan.updatedAt, at),
    visited: 0,
    found: 0,
    foundPaths: [],
    requests: 0,
    skipped: [],
    skippedTotal: 0,
    error: null,
    runBy: { ...to, since: at },
    handovers: [...scan.handovers, handover].slice(-MAX_SCAN_HANDOVERS),
  };
}

export const isScanFinished = (scan: Pick<LockScanRecord, 'state'>): boolean => scan.state !== 'running';

const bytesOf = (scan: LockScanRecord): number => new TextEncoder().encode(JSON.stringify(scan)).length;

/**
 * The record as stored: itself when it fits in `maxBytes`; else its lists shortened (the found
 * paths, then the skipped ones), their totals kept, so what is past the cap is counted, not listed.
 */
export function fitScanRecord(scan: LockScanRecord, maxBytes: number): LockScanRecord {
  if (bytesOf(scan) <= maxBytes) return scan;
  let out: LockScanRecord = { ...scan, skipped: scan.skipped.slice(0, 20) };
  for (let keep = out.foundPaths.length; bytesOf(out) > maxBytes && keep > 0;) {
    keep = Math.floor(keep / 2);
    out = { ...out, foundPaths: scan.foundPaths.slice(0, keep) };
  }
  if (bytesOf(out) > maxBytes) out = { ...out, skipped: [] };
  return out;
}

/** What the Locks view's line says of a scan. */
export function lastScanOf(scan: LockScanRecord): LastScan {
  return {
    path: scan.path,
    jobId: scan.id,
    state: scan.state,
    startedAt: scan.startedAt,
    finishedAt: scan.finishedAt,
    visited: scan.visited,
    found: scan.found,
    requests: scan.requests,
    skipped: scan.skipped,
    skippedTotal: scan.skippedTotal,
    ...(scan.runBy ? { runBy: scan.runBy, updatedAt: scan.updatedAt } : {}),
    ...(scan.handovers.length > 0 ? { handovers: scan.handovers.map((h) => ({ at: h.at, sentence: h.sentence })) } : {}),
    ...(scan.cancelRequest ? { cancelRequest: { by: scan.cancelRequest.by, replica: scan.cancelRequest.replica.name, at: scan.cancelRequest.at } } : {}),
  };
}

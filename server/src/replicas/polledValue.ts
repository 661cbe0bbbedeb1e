/**
 * How a polled result travels through the home ensemble (sharedPolling, docs/operating/replicas.md): its
 * JSON deflated, cut into pages of at most PAGE_BYTES, the first page inline in the head znode
 * `polled/<kind>` and the rest in `polled/<kind>/<n>`. Every znode stays under the replicas'
 * 64 KiB cap (base64 adds a third), and a result is at most MAX_POLLED_PAGES pages: past that it
 * is not shared, and the replicas that asked are told why. Pure: the writing and reading live in
 * polledPublisher.ts and polledFollower.ts.
 *
 * A head names its content by `seq`, and so does every page: a reader that finds a page of
 * another `seq` read it while the writer was between pages, and waits for the next head (pages
 * are written before their head, so a head never names pages not written yet).
 */
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { z } from 'zod';

/** What the polling replica publishes, per ensemble. */
export const POLLED_KINDS = ['health', 'history', 'sessions', 'watches', 'watch-paths', 'lock-watches'] as const;
export type PolledKind = (typeof POLLED_KINDS)[number];
/** The kinds another replica asks for (gathered on demand); health and history are published every round. */
export const ASKED_KINDS = ['sessions', 'watches', 'watch-paths', 'lock-watches'] as const satisfies readonly PolledKind[];
export type AskedKind = (typeof ASKED_KINDS)[number];

/** Deflated bytes per page: 46,000 bytes are 61,336 characters of base64, with room for the head's other fields under 64 KiB. */
export const PAGE_BYTES = 46_000;
/** Pages per result at most (the head's included): about 736 KB deflated, several MB of JSON. */
export const MAX_POLLED_PAGES = 16;
/** JSON larger than this is not even compressed (a bound on the memory one result may take). */
export const MAX_POLLED_JSON_BYTES = 32 * 1024 * 1024;

export const polledHeadSchema = z.object({
  v: z.literal(1),
  /** The replica that published it: its id and `host:port`. */
  by: z.object({ id: z.string(), name: z.string() }),
  /** The publisher's election sequence number: a later leader's is higher. */
  term: z.number().int(),
  /** The content's id, the same in every page of it. */
  seq: z.string(),
  /** When the content was polled or gathered (the publisher's clock, as the result itself says). */
  at: z.number(),
  /** The highest version of `asks/<kind>` answered with this content (0 before any). */
  ask: z.number().int(),
  /** The latest ask that could not be answered, and why (a gathering that failed, a result too large to share). */
  failed: z.object({ ask: z.number().int(), message: z.string() }).nullable(),
  pages: z.number().int().min(1).max(MAX_POLLED_PAGES),
  /** Deflated JSON bytes in all. */
  bytes: z.number().int(),
  /** The first page: base64 of deflated JSON. */
  z: z.string(),
});
export type PolledHead = z.infer<typeof polledHeadSchema>;

export const polledPageSchema = z.object({ seq: z.string(), z: z.string() });
export type PolledPage = z.infer<typeof polledPageSchema>;

/** A follower's request: `asks/<kind>`, set by compare-and-set; its version is the ask's number. */
export const polledAskSchema = z.object({ replica: z.string(), at: z.number() });

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** Makes `dir` and every directory between the root and it (each created with the replicas' ACL, empty JSON). */
export async function ensureDirs(store: { root: string; createIfMissing(path: string, value: unknown): Promise<void> }, dir: string): Promise<void> {
  const segments = dir.slice(store.root.length + 1).split('/');
  for (let i = 1; i <= segments.length; i++) await store.createIfMissing(`${store.root}/${segments.slice(0, i).join('/')}`, {});
}

export class TooLargeToShare extends Error {
  override readonly name = 'TooLargeToShare';
}

/** The value cut into base64 pages of deflated JSON; TooLargeToShare past the bounds. */
export async function encodePolled(value: unknown): Promise<{ pages: string[]; bytes: number }> {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  if (json.length > MAX_POLLED_JSON_BYTES) throw new TooLargeToShare(`${json.length} bytes of JSON, over the ${MAX_POLLED_JSON_BYTES}-byte bound`);
  const deflated = await deflate(json);
  const count = Math.max(1, Math.ceil(deflated.length / PAGE_BYTES));
  if (count > MAX_POLLED_PAGES)
    throw new TooLargeToShare(
      `${deflated.length} bytes deflated (${json.length} of JSON) would take ${count} pages; the bound is ${MAX_POLLED_PAGES} of ${PAGE_BYTES} bytes`,
    );
  const pages: string[] = [];
  for (let i = 0; i < count; i++) pages.push(deflated.subarray(i * PAGE_BYTES, (i + 1) * PAGE_BYTES).toString('base64'));
  return { pages, bytes: deflated.length };
}

/** The value back from its pages (the head's first); throws on pages that do not make up `bytes` or do not inflate to JSON. */
export async function decodePolled(pages: readonly string[], bytes: number): Promise<unknown> {
  const deflated = Buffer.concat(pages.map((p) => Buffer.from(p, 'base64')));
  if (deflated.length !== bytes) throw new Error(`the pages hold ${deflated.length} bytes, the head says ${bytes}`);
  const json = await inflate(deflated, { maxOutputLength: MAX_POLLED_JSON_BYTES });
  return JSON.parse(json.toString('utf8')) as unknown;
}

/**
 * A znode with many children and its first page through Keeper's API, timed in pairs with a raw
 * read of the same kind (bench/children.ts, bench/secure.ts). ZooKeeper 3.6+ keeps the
 * serialized answer of a getChildren until the list changes, so a read of a list just changed is
 * paired with a raw read of a list just changed: `bumper` changes the list by one child first.
 */
import type { ZnodeAnswer } from '@keeper/shared';
import { ENSEMBLE } from './benchEnv.js';
import { sleep, type Scope } from './lifecycle.js';
import type { RawZk } from './rawZk.js';
import { timed } from './stats.js';

export const PAGE = 1_000;
export const CHUNK = 1_000;
export const PARALLEL_COMMITS = 4;
/**
 * Every timed call comes after the same pause: the first read on a connection that has been
 * idle is slower (GC, TCP slow start after idle), and each side should pay that alike.
 */
export const PAUSE_MS = 50;

export const childName = (i: number) => `item-${i}`;
/** Sorts before every item-N, so each change shows on the first page. */
export const bumpName = (i: number) => `bump-${i}`;

/** Creates `path` with `count` children item-0.. in multis of 1,000, 4 in flight; returns the milliseconds it took. */
export async function createChildren(scope: Scope, raw: RawZk, path: string, count: number): Promise<number> {
  await raw.create(path, 'a znode with many children');
  const began = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count && !scope.signal.aborted) {
      const from = next;
      next = Math.min(count, next + CHUNK);
      const paths: string[] = [];
      for (let i = from; i < next; i++) paths.push(`${path}/${childName(i)}`);
      await raw.createMany(paths);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_COMMITS }, worker));
  return performance.now() - began;
}

export async function firstPage(url: string, path: string): Promise<ZnodeAnswer> {
  const res = await fetch(`${url}/api/ensembles/${ENSEMBLE}/znodes${path}?limit=${PAGE}`);
  if (!res.ok) throw new Error(`GET first page of ${path}: HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as ZnodeAnswer;
}

/** What is wrong with a first page whose list holds item-0..item-(children-1) and, when given, the bump child `first`; null when right. */
export function checkPage(page: ZnodeAnswer, children: number, first: string | null): string | null {
  const total = children + (first ? 1 : 0);
  if (page.children.total !== total) return `total ${page.children.total}, expected ${total}`;
  const expected = first ? [first, ...Array.from({ length: PAGE - 1 }, (_, i) => childName(i))] : Array.from({ length: PAGE }, (_, i) => childName(i));
  if (page.children.names.length !== PAGE) return `${page.children.names.length} names, expected ${PAGE}`;
  const wrong = page.children.names.findIndex((n, i) => n !== expected[i]);
  return wrong === -1 ? null : `name ${wrong} is ${page.children.names[wrong]}, expected ${expected[wrong]}`;
}

/** Each change creates the next bump child of `path` and deletes the previous one: a new list, one child apart. */
export function bumper(writer: RawZk, path: string): { bump(): Promise<string>; readonly bumps: number } {
  let bumps = 0;
  return {
    get bumps() {
      return bumps;
    },
    async bump() {
      const name = bumpName(bumps++);
      await writer.create(`${path}/${name}`);
      if (bumps > 1) await writer.remove(`${path}/${bumpName(bumps - 2)}`);
      return name;
    },
  };
}

/** A side of a pair: what to do untimed first (change the list), then the timed read. */
export interface Side<T> {
  before?: () => Promise<unknown>;
  read: () => Promise<T>;
}

/**
 * Times a raw read and a Keeper read of the same kind, each after its own `before` and the same
 * pause, in turn first and second (by `i`): other work on the machine weighs on both alike.
 */
export function pairer(scope: Scope) {
  const run = async <T>(side: Side<T>) => {
    await side.before?.();
    await sleep(PAUSE_MS, scope.signal);
    return timed(side.read);
  };
  return async <A, B>(i: number, raw: Side<A>, keeper: Side<B>): Promise<[{ value: A; ms: number }, { value: B; ms: number }]> => {
    if (i % 2 === 0) {
      const r = await run(raw);
      return [r, await run(keeper)];
    }
    const k = await run(keeper);
    return [await run(raw), k];
  };
}

/**
 * "What it waits for": each waiter's chain to a holder, "c waits for b waits for a (holder)".
 * Every blocker is an earlier contender, so one pass in order computes every chain's end, its
 * length and the first stuck link (a leaked or persistent node) in O(n): the 100,000th waiter
 * costs no more than the first.
 */
import type { HoldingPlan } from './holding.js';
import type { ContenderStatus } from './schemas.js';

/** Links shown before the middle of a long chain is shortened. */
export const CHAIN_SHOWN_LINKS = 4;

export interface WaitChains {
  /** Per contender: the holder its chain ends at; null for holders and rules nobody waits in. */
  root: (number | null)[];
  /** Per contender: links to the holder (0 for holders). */
  depth: number[];
  /** Per contender: the nearest leaked or persistent node on its chain (the holder included), or null. */
  stuckAt: (number | null)[];
}

function isStuck(status: ContenderStatus | undefined): boolean {
  return status === 'leaked' || status === 'persistent';
}

/** `statusOf` answers for listed contenders; the others are taken as healthy. */
export function buildWaitChains(plan: HoldingPlan, statusOf: (index: number) => ContenderStatus | undefined): WaitChains {
  const n = plan.holding.length;
  const root = new Array<number | null>(n).fill(null);
  const depth = new Array<number>(n).fill(0);
  const stuckAt = new Array<number | null>(n).fill(null);
  for (let i = 0; i < n; i++) {
    const b = plan.blocker[i] ?? null;
    if (b === null) continue;
    root[i] = plan.holding[b] ? b : root[b]!;
    depth[i] = depth[b]! + 1;
    stuckAt[i] = isStuck(statusOf(b)) ? b : stuckAt[b]!;
  }
  return { root, depth, stuckAt };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}/;

/** Names already shortened: every analysis of a lock names the same nodes again. Bounded: cleared when full. */
const shortNames = new Map<string, string>();
const SHORT_NAMES_KEPT = 50_000;

/** A node's name with its random uuid cut to 6 characters: `_c_5f2c1a…-lock-0000000003`. */
export function shortName(name: string): string {
  let short = shortNames.get(name);
  if (short === undefined) {
    short = name.replace(UUID, (uuid) => `${uuid.slice(0, 6)}…`);
    if (shortNames.size >= SHORT_NAMES_KEPT) shortNames.clear();
    shortNames.set(name, short);
  }
  return short;
}

export interface ChainTextInput {
  names: readonly string[];
  plan: HoldingPlan;
  chains: WaitChains;
  statusOf: (index: number) => ContenderStatus | undefined;
  /** "leader" for elections. */
  holderWord: string;
}

function label(i: number, input: ChainTextInput, isRoot: boolean): string {
  const name = shortName(input.names[i]!);
  const status = input.statusOf(i);
  if (isRoot) return `${name} (${input.holderWord}${status === 'persistent' ? ', persistent' : ''})`;
  return isStuck(status) ? `${name} (${status})` : name;
}

/** "c waits for b waits for a (holder)"; with more than CHAIN_SHOWN_LINKS links, "… 996 more …" in the middle. */
export function waitsForText(i: number, input: ChainTextInput): string | null {
  const root = input.chains.root[i];
  if (root === null || root === undefined) return null;
  const depth = input.chains.depth[i]!;
  const parts: string[] = [];
  const shownBeforeGap = depth <= CHAIN_SHOWN_LINKS ? depth - 1 : CHAIN_SHOWN_LINKS - 2;
  let j = input.plan.blocker[i]!;
  for (let k = 0; k < shownBeforeGap; k++) {
    parts.push(label(j, input, false));
    j = input.plan.blocker[j]!;
  }
  if (depth > CHAIN_SHOWN_LINKS) parts.push(`… ${depth - shownBeforeGap - 1} more …`);
  parts.push(label(root, input, true));
  // The waiter itself is tagged too: a leaked node heads its own chain as "x (leaked) waits for …".
  return `${label(i, input, false)} waits for ${parts.join(' waits for ')}`;
}

/**
 * Is this directory a lock (or election, semaphore, queue), and which recipe? Decided from
 * the names of its children alone, plus its siblings for the recipes that are told apart by
 * a node beside them (kazoo's Semaphore and LockingQueue). Every child must be read by the
 * same recipe: a directory with one unknown or foreign name is not a lock, because holding
 * rules applied to the wrong nodes would name the wrong holder.
 */
import { baseName } from '../paths.js';
import { BUILT_IN_RECIPES, type DirectoryContext, type ParsedName, type RecipeDefinition } from './recipes.js';
import type { RecipeInfo } from './schemas.js';

export interface RecognizeInput {
  /** The directory. */
  path: string;
  /** Its children's names, in any order. */
  children: readonly string[];
  /** Its parent's children's names, when fetched (needed for kazoo Semaphore and LockingQueue). */
  siblings?: readonly string[] | ReadonlySet<string> | null;
  /** In-house recipes (compileLockPattern), tried before the built-in ones. */
  patterns?: readonly RecipeDefinition[];
}

export interface RecognizedContender extends ParsedName {
  name: string;
}

export interface RecognizedLock {
  path: string;
  recipe: RecipeDefinition;
  /** Every child, in the recipe's order: priority (queues), then sequence. */
  contenders: RecognizedContender[];
  /** What the surroundings add ("the lock kazoo's Semaphore /x takes"), or null. */
  note: string | null;
}

/** The recipe as the API shows it. */
export function recipeInfo(recipe: RecipeDefinition): RecipeInfo {
  return { id: recipe.id, label: recipe.label, library: recipe.library, kind: recipe.kind, holding: recipe.holding };
}

/**
 * Queues take the lowest priority first, then the lowest sequence. Nodes without a sequence
 * (kazoo Semaphore leases, Party members) all hold alike; by name only for a stable display.
 */
export function compareContenders(a: RecognizedContender, b: RecognizedContender): number {
  const pa = a.priority ?? 0;
  const pb = b.priority ?? 0;
  if (pa !== pb) return pa - pb;
  if (a.sequence !== null && b.sequence !== null && a.sequence !== b.sequence) return a.sequence - b.sequence;
  if (a.sequence !== null && b.sequence === null) return -1;
  if (a.sequence === null && b.sequence !== null) return 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function readAll(recipe: RecipeDefinition, children: readonly string[]): RecognizedContender[] | null {
  const out: RecognizedContender[] = [];
  for (const name of children) {
    const parsed = recipe.parse(name);
    if (parsed === null) return null;
    out.push({ name, ...parsed });
  }
  return out;
}

export function recognizeLock(input: RecognizeInput): RecognizedLock | null {
  if (input.children.length === 0) return null;
  const given = input.siblings ?? null;
  const siblings = given === null ? null : given instanceof Set ? given : new Set(given);
  const dir: DirectoryContext = { path: input.path, base: baseName(input.path), siblings };
  for (const recipe of [...(input.patterns ?? []), ...BUILT_IN_RECIPES]) {
    if (recipe.appliesTo && !recipe.appliesTo(dir)) continue;
    const contenders = readAll(recipe, input.children);
    if (contenders === null) continue;
    contenders.sort(compareContenders);
    return { path: input.path, recipe, contenders, note: recipe.note?.(dir) ?? null };
  }
  return null;
}

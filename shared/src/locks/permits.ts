/**
 * A semaphore's N, from where its recipe keeps it: kazoo's Semaphore writes max_leases as text
 * in the semaphore node's data; Curator's InterProcessSemaphoreV2 keeps it only in its
 * clients' memory, so it comes from the config (`locks.permits`) or stays unknown.
 */
import type { RecipeDefinition } from './recipes.js';

export interface ResolvedPermits {
  permits: number | null;
  source: 'recorded' | 'configured' | null;
}

export function parseRecordedPermits(data: Uint8Array | null | undefined): number | null {
  if (!data || data.length === 0 || data.length > 12) return null;
  const text = new TextDecoder().decode(data).trim();
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && Number.isSafeInteger(n) ? n : null;
}

export function resolvePermits(recipe: RecipeDefinition, directoryData: Uint8Array | null | undefined, configured: number | null | undefined): ResolvedPermits {
  if (recipe.kind !== 'semaphore') return { permits: null, source: null };
  if (recipe.permitsInDirectoryData) {
    const recorded = parseRecordedPermits(directoryData);
    if (recorded !== null) return { permits: recorded, source: 'recorded' };
  }
  if (recipe.permits !== undefined) return { permits: recipe.permits, source: 'configured' };
  if (typeof configured === 'number') return { permits: configured, source: 'configured' };
  return { permits: null, source: null };
}

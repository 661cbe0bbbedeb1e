/** Rules for deleting: what to ask before, and what the count means. */
import { baseName } from '@keeper/shared';
import { formatCount } from '../../../lib/bytes';

/** What the operator types to confirm a recursive delete: the node's own name (matched by ui/TypedConfirm). */
export function confirmWord(path: string): string {
  return baseName(path);
}

/** "this will delete 10,001 nodes" (or "at least 200,000" past the counting limit). */
export function countWords(count: number, truncated: boolean): string {
  return `${truncated ? 'at least ' : ''}${formatCount(count)} ${count === 1 ? 'node' : 'nodes'}`;
}

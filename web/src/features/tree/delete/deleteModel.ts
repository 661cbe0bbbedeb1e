/** Rules for deleting: what to ask before, and what the count means. */
import { baseName } from '@keeper/shared';
import { formatCount } from '../../../lib/bytes';
import { escapeHiddenChars } from '../../../lib/invisibleChars';

/** What the operator types to confirm a recursive delete: the node's own name. */
export function confirmWord(path: string): string {
  return baseName(path);
}

/** The name as typed, or as shown when it holds hidden characters (`abc\u202Egpj.exe`): those cannot be typed. */
export function confirmMatches(path: string, typed: string): boolean {
  const word = confirmWord(path);
  const t = typed.trim();
  return t === word || t === escapeHiddenChars(word);
}

/** "this will delete 10,001 nodes" (or "at least 200,000" past the counting limit). */
export function countWords(count: number, truncated: boolean): string {
  return `${truncated ? 'at least ' : ''}${formatCount(count)} ${count === 1 ? 'node' : 'nodes'}`;
}

/**
 * How a long znode name gives way in a narrow row: from the middle, never from the end. The end
 * is what tells siblings apart (a sequential node's 10-digit counter, "-v2", ".json"), so it is
 * kept whole and only the head is cut with "…".
 */
import { sequenceSuffixStart } from '@keeper/shared';

/** Characters of a sequential name's prefix kept before its counter ("-lock-" of "…-lock-0000000003"). */
const PREFIX_KEPT = 6;
/** Characters kept at the end of any other long name. */
const TAIL_KEPT = 8;
/** Names up to this long are cut at the end like any text: there is no middle worth keeping. */
const SHORT = 16;

export function middleCut(name: string): { head: string; tail: string } {
  const seq = sequenceSuffixStart(name);
  if (seq >= 0) {
    const at = Math.max(0, seq - PREFIX_KEPT);
    return { head: name.slice(0, at), tail: name.slice(at) };
  }
  if (name.length <= SHORT) return { head: name, tail: '' };
  // Never split a surrogate pair.
  let at = name.length - TAIL_KEPT;
  const code = name.charCodeAt(at);
  if (code >= 0xdc00 && code <= 0xdfff) at--;
  return { head: name.slice(0, at), tail: name.slice(at) };
}

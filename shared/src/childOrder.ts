/**
 * ZooKeeper returns children unordered; operators expect a stable natural order
 * (node-2 before node-10, lock-0000000002 before lock-0000000010). Hand-written rather than
 * Intl.Collator because sorting 100,000 children with a collator takes seconds; this
 * comparator allocates nothing and sorts 100k names in well under 100 ms.
 *
 * Sequential children (a name ending in ZooKeeper's 10-digit counter) come first, ordered by
 * that counter: the order ZooKeeper made them in, which is what lock and election recipes rank
 * by. So a lock's holder is first even when every contender's prefix differs (Curator's
 * protected names `_c_<uuid>-lock-0000000003`, kazoo's `<uuid>__lock__0000000003`). Equal
 * counters, and all other names, fall back to natural order. The server's first-page heap
 * selection and the browser's sorted lists share this comparator, so they always agree.
 */
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Length of ZooKeeper's sequence suffix: the counter is formatted as %010d. */
export const SEQUENCE_DIGITS = 10;

/**
 * Where a sequential name's 10-digit counter starts, or -1 when the name has none: exactly ten
 * digits at the end, not preceded by another digit (so "20240101123456" is not one).
 */
export function sequenceSuffixStart(name: string): number {
  const start = name.length - SEQUENCE_DIGITS;
  if (start < 0) return -1;
  for (let k = start; k < name.length; k++) if (!isDigit(name.charCodeAt(k))) return -1;
  if (start > 0 && isDigit(name.charCodeAt(start - 1))) return -1;
  return start;
}

export function compareChildNames(a: string, b: string): number {
  const sa = sequenceSuffixStart(a);
  const sb = sequenceSuffixStart(b);
  if (sa >= 0 && sb >= 0) {
    // Fixed width: comparing digit by digit is comparing the numbers.
    for (let k = 0; k < SEQUENCE_DIGITS; k++) {
      const d = a.charCodeAt(sa + k) - b.charCodeAt(sb + k);
      if (d !== 0) return d;
    }
  } else if (sa >= 0) {
    return -1;
  } else if (sb >= 0) {
    return 1;
  }
  return compareNatural(a, b);
}

/** Natural order: digit runs compare as numbers, everything else code unit by code unit. */
export function compareNatural(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let si = i;
      while (si < a.length && a.charCodeAt(si) === 48) si++;
      let sj = j;
      while (sj < b.length && b.charCodeAt(sj) === 48) sj++;
      let ei = si;
      while (ei < a.length && isDigit(a.charCodeAt(ei))) ei++;
      let ej = sj;
      while (ej < b.length && isDigit(b.charCodeAt(ej))) ej++;
      // More significant digits is a bigger number; equal length compares digit by digit.
      if (ei - si !== ej - sj) return ei - si - (ej - sj);
      for (let k = 0; k < ei - si; k++) {
        const d = a.charCodeAt(si + k) - b.charCodeAt(sj + k);
        if (d !== 0) return d;
      }
      // Same value: fewer leading zeros first, so "1" < "01" and the order stays total.
      if (ei - i !== ej - j) return ei - i - (ej - j);
      i = ei;
      j = ej;
      continue;
    }
    if (ca !== cb) return ca - cb;
    i++;
    j++;
  }
  return a.length - i - (b.length - j);
}

/** Where `name` belongs in names already in this order: the index of the first name not before it (binary search). */
export function childInsertionPoint(ordered: readonly string[], name: string): number {
  let lo = 0;
  let hi = ordered.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareChildNames(ordered[mid]!, name) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function sortChildNames(names: readonly string[]): string[] {
  return [...names].sort(compareChildNames);
}

/**
 * The first k names in this order without sorting them all: a bounded max-heap, O(n log k).
 * A first page of 1,000 out of 100,000 children costs ~11 ms this way against ~60 ms for a full sort.
 */
export function smallestChildNames(names: readonly string[], k: number): string[] {
  const heap: string[] = [];
  const greater = (i: number, j: number) => compareChildNames(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  for (const name of names) {
    if (heap.length < k) {
      heap.push(name);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!greater(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (k > 0 && compareChildNames(name, heap[0]!) < 0) {
      heap[0] = name;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let top = i;
        if (l < heap.length && greater(l, top)) top = l;
        if (r < heap.length && greater(r, top)) top = r;
        if (top === i) break;
        swap(i, top);
        i = top;
      }
    }
  }
  return heap.sort(compareChildNames);
}

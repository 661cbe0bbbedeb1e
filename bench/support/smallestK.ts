/**
 * The first k names in Keeper's child order without sorting them all: a bounded max-heap,
 * O(n log k) and mostly one comparison per name. Used by the children bench to show what
 * a first page could cost if it did not sort 100,000 names.
 */
import { compareChildNames } from '@keeper/shared';

export function smallestK(names: readonly string[], k: number): string[] {
  const heap: string[] = [];
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  const greater = (i: number, j: number) => compareChildNames(heap[i]!, heap[j]!) > 0;
  for (const name of names) {
    if (heap.length < k) {
      heap.push(name);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!greater(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (k > 0 && compareChildNames(name, heap[0]!) < 0) {
      heap[0] = name;
      for (let i = 0; ; ) {
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

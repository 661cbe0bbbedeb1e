/**
 * jsdom lays nothing out: every element is 0 px tall, so a virtualized list (TanStack Virtual reads
 * its scroll element's clientHeight and each row's offsetHeight) would render no rows at all.
 * Gives every element a fixed size for the duration of one test file.
 */
import { afterAll, beforeAll } from 'vitest';

export function withLayout({ viewportHeight, rowHeight }: { viewportHeight: number; rowHeight: number }): void {
  const originals = new Map<string, PropertyDescriptor | undefined>();
  const sizes: Record<string, number> = { clientHeight: viewportHeight, clientWidth: 1_000, offsetHeight: rowHeight, offsetWidth: 1_000 };
  beforeAll(() => {
    for (const [name, px] of Object.entries(sizes)) {
      originals.set(name, Object.getOwnPropertyDescriptor(HTMLElement.prototype, name));
      Object.defineProperty(HTMLElement.prototype, name, { configurable: true, get: () => px });
    }
  });
  afterAll(() => {
    for (const [name, descriptor] of originals) {
      // clientHeight and clientWidth live on Element.prototype: deleting the override uncovers them again.
      if (descriptor) Object.defineProperty(HTMLElement.prototype, name, descriptor);
      else Reflect.deleteProperty(HTMLElement.prototype, name);
    }
  });
}

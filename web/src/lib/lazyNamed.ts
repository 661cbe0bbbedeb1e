/**
 * React.lazy for a named export, for views and for parts of the page that wait for a click
 * (dialogs, the session timeline): the first page loads none of their code. A chunk that fails to
 * load usually means the server was upgraded under an open page (the old hashed files are gone):
 * reload once to get the new index.html; a second failure throws a LazyChunkError for the nearest
 * boundary instead of looping.
 */
import { lazy, type ComponentType } from 'react';

const RELOADED_KEY = 'keeper.viewReloaded';

/** A part's code did not arrive (not a bug in the part). */
export class LazyChunkError extends Error {
  constructor(part: string, cause: unknown) {
    super(`could not load the code of ${part}`, { cause });
    this.name = 'LazyChunkError';
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the props of whichever component is loaded
export function lazyNamed<K extends string, C extends ComponentType<any>>(load: () => Promise<Record<K, C>>, name: K) {
  return lazy(async () => {
    try {
      const module = await load();
      sessionStorage.removeItem(RELOADED_KEY);
      return { default: module[name] };
    } catch (error) {
      if (sessionStorage.getItem(RELOADED_KEY) === null) {
        sessionStorage.setItem(RELOADED_KEY, '1');
        window.location.reload();
        return new Promise<never>(() => {});
      }
      throw new LazyChunkError(name, error);
    }
  });
}

import { useCallback, useState } from 'react';

/** A boolean UI preference (panel open or closed) remembered across visits. */
export function usePersistentFlag(key: string, initial: boolean): [boolean, (update: (prev: boolean) => boolean) => void] {
  const [value, setValue] = useState(() => {
    try {
      const stored = localStorage.getItem(key);
      return stored === null ? initial : stored === '1';
    } catch {
      return initial;
    }
  });
  const update = useCallback(
    (fn: (prev: boolean) => boolean) =>
      setValue((prev) => {
        const next = fn(prev);
        try {
          localStorage.setItem(key, next ? '1' : '0');
        } catch {
          // Storage refused: the preference lasts for this page only.
        }
        return next;
      }),
    [key],
  );
  return [value, update];
}

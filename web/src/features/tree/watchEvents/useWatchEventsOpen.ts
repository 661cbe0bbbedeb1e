/**
 * Whether the watch-events panel is open, remembered per kind of screen: on a phone it starts
 * closed (open, it would take a quarter of the screen from the znode), elsewhere open. The
 * header's toggle (and `w`) opens it on either.
 */
import { usePersistentFlag } from '../../../lib/usePersistentFlag';

/** The width below which the explorer is laid out for a phone (tree.css uses the same). */
export const PHONE_QUERY = '(max-width: 760px)';

function isPhone(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia(PHONE_QUERY).matches;
}

export function useWatchEventsOpen(): [boolean, (update: (prev: boolean) => boolean) => void] {
  // Read once: a rotated phone keeps what the operator chose for it.
  const phone = isPhone();
  return usePersistentFlag(phone ? 'keeper.watchEvents.open.phone' : 'keeper.watchEvents.open', !phone);
}

import { formatAbsolute, formatAgo } from '../lib/time';
import { useNow } from '../lib/useNow';

/** "12 s ago", with the absolute local time on hover and for assistive tech (<time dateTime>). */
export function RelativeTime({ at, className }: { at: number; className?: string }) {
  const now = useNow();
  return (
    <time className={className} dateTime={new Date(at).toISOString()} title={formatAbsolute(at)}>
      {formatAgo(at, now)}
    </time>
  );
}

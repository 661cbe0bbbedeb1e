/**
 * Time formatting for an operator's eye: short relative durations ("4 s", "3 min") with the
 * absolute local time available on hover. Pure, so the same rules hold everywhere.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "0 s", "4 s", "3 min", "2 h 5 min", "3 d 4 h". Negative input (clock skew) counts as 0. */
export function formatDuration(ms: number): string {
  const d = Math.max(0, ms);
  if (d < MINUTE) return `${Math.floor(d / SECOND)} s`;
  if (d < HOUR) return `${Math.floor(d / MINUTE)} min`;
  if (d < DAY) {
    const h = Math.floor(d / HOUR);
    const m = Math.floor((d % HOUR) / MINUTE);
    return m === 0 ? `${h} h` : `${h} h ${m} min`;
  }
  const days = Math.floor(d / DAY);
  const h = Math.floor((d % DAY) / HOUR);
  return h === 0 ? `${days} d` : `${days} d ${h} h`;
}

/** "just now" under a second (or when the server clock is slightly ahead), else "12 s ago". */
export function formatAgo(at: number, now: number): string {
  const d = now - at;
  if (d < SECOND) return 'just now';
  return `${formatDuration(d)} ago`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Local wall-clock time "14:02:31": what "as of" and "deleted at" show. */
export function formatClock(at: number): string {
  const t = new Date(at);
  return `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`;
}

/** Local date and time with milliseconds and the UTC offset, for hover titles. */
export function formatAbsolute(at: number): string {
  const t = new Date(at);
  const offsetMin = -t.getTimezoneOffset();
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
  const date = `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}`;
  const time = `${formatClock(at)}.${pad(t.getMilliseconds(), 3)}`;
  return `${date} ${time} UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * java.util.Date's toString ("Sun Nov 22 04:52:14 UTC 2026"), which `dump` prints for
 * expiry times. Only zones that name an offset unambiguously are read (UTC, GMT, GMT+01:00,
 * Z); "CST" means three different offsets, so anything else is null rather than a guess.
 */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const FORMAT = /^[A-Za-z]{3} ([A-Za-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\S+) (\d{4})$/;

function offsetMinutes(zone: string): number | null {
  if (zone === 'UTC' || zone === 'GMT' || zone === 'Z') return 0;
  const match = /^(?:GMT|UTC)([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** Epoch ms, or null when the text is not in that form or its zone is ambiguous. */
export function parseJavaDate(text: string): number | null {
  const match = FORMAT.exec(text.trim());
  if (!match) return null;
  const month = MONTHS.indexOf(match[1]!.toLowerCase());
  const offset = offsetMinutes(match[6]!);
  if (month === -1 || offset === null) return null;
  const utc = Date.UTC(Number(match[7]), month, Number(match[2]), Number(match[3]), Number(match[4]), Number(match[5]));
  return utc - offset * 60_000;
}

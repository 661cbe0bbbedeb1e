/**
 * Watch listings. `wchs` is a cheap summary; `wchp` (by path) and `wchc` (by session) walk
 * every watch under a lock, so they are run on demand only. Both list DATA watches (exists,
 * getData: what lock waiters set on their predecessor), not child watches.
 *
 *   wchs:  "3 connections watching 2 paths\nTotal watches:4"
 *   wchp:  "/app/locks/leader\n\t0x100002f75570005\n\t0x100002f75570004\n"
 */
import { normalizeSessionId } from './sessionIds.js';

export interface WatchSummary {
  connections: number;
  paths: number;
  watches: number;
}

export function parseWchs(text: string): WatchSummary | null {
  const head = /(\d+)\s+connections?\s+watching\s+(\d+)\s+paths?/i.exec(text);
  const total = /Total watches:\s*(\d+)/i.exec(text);
  if (!head || !total) return null;
  return { connections: Number(head[1]), paths: Number(head[2]), watches: Number(total[1]) };
}

/** path -> session ids watching it, in the order printed. */
export function parseWchp(text: string): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    if (/^\s/.test(raw)) {
      const id = normalizeSessionId(raw.trim());
      if (current && id) current.push(id);
      continue;
    }
    const path = raw.trim();
    if (!path.startsWith('/')) {
      current = null;
      continue;
    }
    current = byPath.get(path) ?? [];
    byPath.set(path, current);
  }
  return byPath;
}

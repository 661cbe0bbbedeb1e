/**
 * One shared clock for every relative time on screen ("4 s ago"), ticking once a second only while
 * something shows one, so a hundred timestamps cost one interval and re-render together.
 *
 * The clock starts on the first read, not on the first subscription: React reads the snapshot
 * while rendering and subscribes only after the commit, so a clock started on subscription would
 * first show the time it last ticked, minutes ago. Between ticks the snapshot stays the same, as
 * useSyncExternalStore requires. It stops when the last listener leaves, or at the next tick when
 * it was read by a render that never subscribed.
 */
import { useSyncExternalStore } from 'react';

let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;
const listeners = new Set<() => void>();

function ticking(): void {
  if (timer !== null) return;
  now = Date.now();
  timer = setInterval(() => {
    // Read but never subscribed (a render that was thrown away): nobody to tick for.
    if (listeners.size === 0) return stop();
    now = Date.now();
    for (const l of listeners) l();
  }, 1000);
}

function stop(): void {
  if (timer === null) return;
  clearInterval(timer);
  timer = null;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  ticking();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) stop();
  };
}

function snapshot(): number {
  ticking();
  return now;
}

export function useNow(): number {
  return useSyncExternalStore(subscribe, snapshot);
}

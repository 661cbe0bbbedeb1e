/**
 * The ensemble view's settings an operator may change without a config file, from the
 * environment (like KEEPER_LOG_LEVEL). Each has a default (where it is used), bounds, and a
 * clear refusal for a value outside them rather than a silent replacement.
 *
 *   KEEPER_MEMBER_BACKOFF_MAX_MS  cap on the delay between tries of a member that is down or
 *                                 unreachable (default 5000; 1000..60000)
 *   KEEPER_SESSIONS_CADENCE_MS    sessions (cons + dump) are gathered again when someone looks
 *                                 and the last gathering is older than this (default 60000;
 *                                 10000..600000)
 *   KEEPER_HERD_LATENCY_MS        a request herd needs its sessions' mean latency to reach this
 *                                 (or another climb: outstanding requests, slow requests, a
 *                                 ratio over the others); 0 names any herd of similar high
 *                                 rates, for a fast ensemble whose latency hardly moves
 *                                 (default 2; 0..10000)
 */
import type { MonitorSettings } from './memberMonitor.js';

type Env = Readonly<Record<string, string | undefined>>;

interface Setting {
  env: string;
  min: number;
  max: number;
  apply(settings: MonitorSettings, value: number): void;
}

export const ENV_SETTINGS: readonly Setting[] = [
  { env: 'KEEPER_MEMBER_BACKOFF_MAX_MS', min: 1_000, max: 60_000, apply: (s, v) => (s.maxBackoffMs = v) },
  { env: 'KEEPER_SESSIONS_CADENCE_MS', min: 10_000, max: 600_000, apply: (s, v) => (s.sessionsCadenceMs = v) },
  { env: 'KEEPER_HERD_LATENCY_MS', min: 0, max: 10_000, apply: (s, v) => (s.herdThresholds = { ...s.herdThresholds, latencyMs: v }) },
];

/** The settings the environment sets; throws with the variable, the value and the bounds when one is out of them. */
export function monitorSettingsFromEnv(env: Env): MonitorSettings {
  const settings: MonitorSettings = {};
  for (const { env: name, min, max, apply } of ENV_SETTINGS) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const value = Number(raw.trim());
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${name}=${JSON.stringify(raw)}: expected milliseconds, a whole number from ${min} to ${max}`);
    }
    apply(settings, value);
  }
  return settings;
}

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
 */
import type { MonitorSettings } from './ensembleMonitor.js';

type Env = Readonly<Record<string, string | undefined>>;

interface Setting {
  env: string;
  key: keyof MonitorSettings;
  min: number;
  max: number;
}

export const ENV_SETTINGS: readonly Setting[] = [
  { env: 'KEEPER_MEMBER_BACKOFF_MAX_MS', key: 'maxBackoffMs', min: 1_000, max: 60_000 },
  { env: 'KEEPER_SESSIONS_CADENCE_MS', key: 'sessionsCadenceMs', min: 10_000, max: 600_000 },
];

/** The settings the environment sets; throws with the variable, the value and the bounds when one is out of them. */
export function monitorSettingsFromEnv(env: Env): MonitorSettings {
  const settings: MonitorSettings = {};
  for (const { env: name, key, min, max } of ENV_SETTINGS) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const value = Number(raw.trim());
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${name}=${JSON.stringify(raw)}: expected milliseconds, a whole number from ${min} to ${max}`);
    }
    settings[key] = value;
  }
  return settings;
}

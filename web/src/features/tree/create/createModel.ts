/** Rules for "Create child": the name, the path it makes, and what each mode means. */
import { checkPath, joinPath, type CreateModeName } from '@keeper/shared';

export type NameCheck = { ok: true; path: string } | { ok: false; reason: string };

/** One level at a time: a name, not a path, so a typo never creates a branch somewhere unexpected. */
export function checkChildName(parent: string, name: string): NameCheck {
  if (name === '') return { ok: false, reason: 'Give the node a name' };
  if (name.includes('/')) return { ok: false, reason: 'A name cannot contain "/": create one level at a time' };
  if (name.trim() !== name) return { ok: false, reason: 'The name starts or ends with a space; ZooKeeper would keep it' };
  const path = joinPath(parent, name);
  const check = checkPath(path);
  if (!check.ok) return { ok: false, reason: check.reason.replace(/^path /, 'the name ') };
  if (path === '/zookeeper' || path.startsWith('/zookeeper/')) return { ok: false, reason: '/zookeeper belongs to ZooKeeper itself' };
  return { ok: true, path };
}

export interface ModeInfo {
  mode: CreateModeName;
  label: string;
  hint: string;
  sequential: boolean;
  ephemeral: boolean;
}

export const MODES: readonly ModeInfo[] = [
  { mode: 'persistent', label: 'Persistent', hint: 'stays until someone deletes it', sequential: false, ephemeral: false },
  {
    mode: 'persistent_sequential',
    label: 'Persistent sequential',
    hint: 'ZooKeeper appends a 10-digit counter to the name',
    sequential: true,
    ephemeral: false,
  },
  { mode: 'ephemeral', label: 'Ephemeral', hint: 'lives as long as the console’s own ZooKeeper session', sequential: false, ephemeral: true },
  { mode: 'ephemeral_sequential', label: 'Ephemeral sequential', hint: 'ephemeral, with the counter', sequential: true, ephemeral: true },
];

export function modeInfo(mode: CreateModeName): ModeInfo {
  return MODES.find((m) => m.mode === mode) ?? MODES[0]!;
}

/** What the new path will look like, for the preview under the name; `counter`: ZooKeeper appends one. */
export function previewPath(parent: string, name: string, mode: CreateModeName): { path: string; counter: boolean } {
  return { path: joinPath(parent, name === '' ? '…' : name), counter: modeInfo(mode).sequential };
}

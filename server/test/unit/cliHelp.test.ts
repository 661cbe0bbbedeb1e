/**
 * `keeper --help` (`npm start -- --help`) lists every flag, every environment variable Keeper reads
 * and every config-file key: each is declared once (the parser's options, the server's code, the
 * config schema) and this test reads them from there, so a new one without a line of help fails.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type z } from 'zod';
import { START_OPTIONS, START_USAGE } from '../../src/config/cli.js';
import { fileConfigSchema } from '../../src/config/fileConfig.js';

const REPO = path.resolve(import.meta.dirname, '../../..');

/** Every object key anywhere in a zod schema (through optionals, arrays, unions, records' values). */
function keysOf(schema: z.ZodType, into = new Set<string>()): Set<string> {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  switch (def.type) {
    case 'object':
      for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        into.add(key);
        keysOf(value, into);
      }
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
      keysOf(def.innerType as z.ZodType, into);
      break;
    case 'pipe':
      keysOf(def.in as z.ZodType, into);
      break;
    case 'array':
      keysOf(def.element as z.ZodType, into);
      break;
    case 'record':
      keysOf(def.valueType as z.ZodType, into);
      break;
    case 'union':
      for (const option of def.options as z.ZodType[]) keysOf(option, into);
      break;
    default:
      break;
  }
  return into;
}

/** KEEPER_* variables (and PORT, HOST) the server and the start script read. */
function environmentVariables(): Set<string> {
  const files = [
    ...readdirSync(path.join(REPO, 'server/src'), { recursive: true, encoding: 'utf8' }).map((f) => path.join(REPO, 'server/src', f)),
    path.join(REPO, 'scripts/start.ts'),
  ].filter((f) => f.endsWith('.ts'));
  const found = new Set<string>(['PORT', 'HOST']);
  for (const file of files) for (const [name] of readFileSync(file, 'utf8').matchAll(/\bKEEPER_[A-Z0-9_]+\b/g)) found.add(name);
  return found;
}

describe('keeper --help', () => {
  it('lists every command-line flag', () => {
    const missing = Object.keys(START_OPTIONS).filter((flag) => !START_USAGE.includes(`--${flag}`));
    expect(missing).toEqual([]);
  });

  it('lists every environment variable Keeper reads', () => {
    const missing = [...environmentVariables()].filter((name) => !new RegExp(`\\b${name}\\b`).test(START_USAGE));
    expect(missing).toEqual([]);
  });

  it('lists every config-file key', () => {
    const missing = [...keysOf(fileConfigSchema)].filter((key) => !new RegExp(`"${key}"`).test(START_USAGE));
    expect(missing).toEqual([]);
  });
});

/**
 * The options table of docs/operating/configuration.md (the manual's Configuration page, linked
 * from the README) says what `npm start` accepts: every option of its --help text and every
 * variable server/src/config/cli.ts reads (but the XDG and HOME ones behind the defaults) is
 * listed on that page, so an option added without a line in the table fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { START_USAGE } from '../server/src/config/cli.js';

const REPO = resolve(import.meta.dirname, '..');
const page = readFileSync(resolve(REPO, 'docs/operating/configuration.md'), 'utf8');
/** The table whose header starts "| Option |", up to the first blank line after it. */
const table = /(\| Option \|[\s\S]*?)\n\n/.exec(page)?.[1] ?? '';

it('lists every option of npm start --help', () => {
  const options = [...new Set(START_USAGE.match(/^\s{2}--[a-z-]+/gm)?.map((o) => o.trim()))].filter((o) => o !== '--help');
  expect(options).toContain('--data-dir');
  expect(options.filter((o) => !table.includes(`\`${o}`))).toEqual([]);
});

it('lists every environment variable the options are read from', () => {
  const source = readFileSync(resolve(REPO, 'server/src/config/cli.ts'), 'utf8');
  const variables = [...new Set([...source.matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]!))].filter((v) => v !== 'XDG_STATE_HOME' && v !== 'HOME');
  expect(variables).toContain('KEEPER_STATE_DIR');
  expect(variables.filter((v) => !page.includes(`\`${v}\``))).toEqual([]);
});

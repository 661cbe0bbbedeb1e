/**
 * The admin token `npm start` makes up when no identity is configured (as Jupyter does):
 * kept in the state directory, mode 0600, so a restart keeps the sign-in URL people saved.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomToken } from './secrets.js';
import { ensureStateDir, readFileIfExists, writeFileAtomic } from '../config/stateFiles.js';

export const GENERATED_TOKEN_FILE = 'admin-token';

export function loadOrCreateAdminToken(stateDir: string): { token: string; file: string; created: boolean } {
  ensureStateDir(stateDir);
  const file = path.join(stateDir, GENERATED_TOKEN_FILE);
  const existing = readFileIfExists(file)?.trim();
  if (existing && /^[A-Za-z0-9_-]{32,}$/.test(existing)) {
    // Tighten the mode in case the file was copied around with a looser one.
    fs.chmodSync(file, 0o600);
    return { token: existing, file, created: false };
  }
  const token = randomToken();
  writeFileAtomic(file, `${token}\n`);
  return { token, file, created: true };
}

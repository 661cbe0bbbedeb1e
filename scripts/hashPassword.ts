/**
 * `npm run hash-password`: reads a password from standard input (typed, or piped) and prints its
 * bcrypt hash for the config file's auth.users[].passwordHash. The password is never echoed,
 * stored or passed on the command line (where `ps` and shell history would see it).
 */
import { hashPassword } from '../server/src/auth/credentials.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  if (process.stdin.isTTY) process.stderr.write('Password (end with Enter, then Ctrl-D): ');
  // Only the trailing line break is dropped: spaces inside or around a password are part of it.
  const password = (await readStdin()).replace(/\r?\n$/, '');
  if (password.length < 8) {
    console.error('hash-password: the password must be at least 8 characters');
    process.exit(2);
  }
  if (Buffer.byteLength(password, 'utf8') > 72) {
    // bcrypt ignores everything past 72 bytes: refuse rather than silently weaken a long password.
    console.error('hash-password: bcrypt uses at most 72 bytes of a password; use a shorter one');
    process.exit(2);
  }
  console.log(await hashPassword(password));
}

await main();

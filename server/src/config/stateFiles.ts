/**
 * Keeper's own state directory (generated admin token, share links, audit trail): created
 * owner-only, files written owner-only, and replaced atomically so a crash mid-write leaves
 * the previous version rather than half a file.
 */
import fs from 'node:fs';
import path from 'node:path';

export function ensureStateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Write to a temporary file, fsync it, rename over the target, fsync the directory. */
export function writeFileAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  try {
    const dirFd = fs.openSync(path.dirname(file), 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } catch {
    // Some file systems refuse to fsync a directory; the rename itself is still atomic.
  }
}

export function readFileIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Lines of a file from the last to the first, read in chunks from the end: the audit trail is
 * read newest first, and must not be loaded whole however long it has grown.
 */
import type { FileHandle } from 'node:fs/promises';

const CHUNK = 64 * 1024;

export async function* reverseLines(handle: FileHandle, size: number): AsyncGenerator<string> {
  let position = size;
  let carry: Buffer = Buffer.alloc(0);
  while (position > 0) {
    const length = Math.min(CHUNK, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    // Split on bytes, not characters: a chunk boundary may cut a UTF-8 character in two.
    let buffer = Buffer.concat([chunk, carry]);
    let end = buffer.length;
    for (let i = buffer.length - 1; i >= 0; i--) {
      if (buffer[i] !== 0x0a) continue;
      const line = buffer.subarray(i + 1, end).toString('utf8');
      if (line.trim() !== '') yield line;
      end = i;
    }
    carry = Buffer.from(buffer.subarray(0, end));
    buffer = Buffer.alloc(0);
  }
  const first = carry.toString('utf8');
  if (first.trim() !== '') yield first;
}

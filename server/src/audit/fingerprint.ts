/** What the audit trail keeps of a value: version, size and a sha256, never the data itself. */
import { createHash } from 'node:crypto';
import type { DataFingerprint, ZnodeStat } from '@keeper/shared';

export function fingerprint(data: Uint8Array, stat: Pick<ZnodeStat, 'version'>): DataFingerprint {
  return { version: stat.version, size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}

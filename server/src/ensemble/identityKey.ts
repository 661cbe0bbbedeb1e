/**
 * A key for state that belongs to an ensemble rather than to a name in Keeper's config (issue 22
 * item 4: two Keepers may each call a different ensemble "default"). Until the ensemble's own
 * identity (a marker znode holding a random id) is read, this is its members: the connection
 * string's servers, sorted, and its chroot, hashed. One function, so that a better identity
 * replaces it in one place.
 */
import { createHash } from 'node:crypto';
import type { EnsembleConfig } from '../config/types.js';
import { parseConnectionString } from '../config/connectionString.js';

export function ensembleStateKey(config: Pick<EnsembleConfig, 'connectionString'>): string {
  const parsed = parseConnectionString(config.connectionString);
  const identity = parsed.ok
    ? `${parsed.value.servers
        .map((s) => `${s.host.toLowerCase()}:${s.port}`)
        .sort()
        .join(',')}${parsed.value.chroot ?? ''}`
    : config.connectionString;
  return createHash('sha256').update(identity).digest('hex').slice(0, 24);
}

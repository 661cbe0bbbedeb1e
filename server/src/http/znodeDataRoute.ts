/**
 * GET /api/ensembles/:name/data/<path>: a znode's value as ZooKeeper stores it, byte for byte, as
 * application/octet-stream, so a script can `curl -o` it and the editor can open a value of any
 * size (the live view carries the first 64 KiB). ZooKeeper itself bounds the size: no value is
 * larger than the ensemble's jute.maxbuffer. Any identity may read it (viewers too); a share-link
 * holder within its scope (shareScopeGuard.ts).
 */
import type { RequestHandler } from 'express';
import { checkPath, ZNODE_DATA_HEADERS } from '@keeper/shared';
import { sendError, sendFailure } from './apiErrors.js';
import { ensembleOf } from './ensembleLookup.js';
import { wildcardPath } from './jsonBody.js';

/** The node's last segment, or "root", as a file name. */
function fileNameOf(ensemble: string, path: string): string {
  const last = path.split('/').at(-1);
  return last ? last : `${ensemble}-root`;
}

export const znodeData: RequestHandler = async (req, res) => {
  const { gateway } = ensembleOf(res);
  const path = wildcardPath(req.params);
  const check = checkPath(path);
  if (!check.ok) return sendError(res, 'INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
  try {
    const { data, stat } = await gateway.getData(path);
    // The mzxid names the transaction that wrote these bytes: a strong validator for If-None-Match.
    res.setHeader('ETag', `"${stat.mzxid}"`);
    res.setHeader(ZNODE_DATA_HEADERS.version, String(stat.version));
    res.setHeader(ZNODE_DATA_HEADERS.mzxid, stat.mzxid);
    // A value may be a secret: kept by no shared cache, revalidated by the browser each time.
    res.setHeader('Cache-Control', 'private, no-cache');
    res.attachment(fileNameOf(gateway.name, path));
    res.type('application/octet-stream');
    res.send(data ?? Buffer.alloc(0));
  } catch (error) {
    sendFailure(res, error, path);
  }
};

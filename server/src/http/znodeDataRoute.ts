/**
 * GET .../data/<path> (ROUTES.znodeData): a znode's value as ZooKeeper stores it, byte for byte, as
 * application/octet-stream, so a script can `curl -o` it and the editor can open a value of any
 * size (the live view carries the first 64 KiB). ZooKeeper itself bounds the size: no value is
 * larger than the ensemble's jute.maxbuffer. Any identity may read it (viewers too); a share-link
 * holder within its scope (shareScopeGuard.ts).
 */
import { ZNODE_DATA_HEADERS, type ROUTES } from '@keeper/shared';
import { toOpError } from '../admin/opError.js';
import { ensembleOf } from './ensembleLookup.js';
import { SENT, type RouteHandler } from './apiRoute.js';
import { validPathOr400 } from './validPath.js';

/** The node's last segment, or "root", as a file name. */
function fileNameOf(ensemble: string, path: string): string {
  const last = path.split('/').at(-1);
  return last ? last : `${ensemble}-root`;
}

export const znodeData: RouteHandler<typeof ROUTES.znodeData> = async ({ params: { path }, res }) => {
  const { gateway } = ensembleOf(res);
  validPathOr400(path);
  let read: Awaited<ReturnType<typeof gateway.getData>>;
  try {
    read = await gateway.getData(path);
  } catch (error) {
    throw toOpError(error, path);
  }
  const { data, stat } = read;
  // The mzxid names the transaction that wrote these bytes: a strong validator for If-None-Match.
  res.setHeader('ETag', `"${stat.mzxid}"`);
  res.setHeader(ZNODE_DATA_HEADERS.version, String(stat.version));
  res.setHeader(ZNODE_DATA_HEADERS.mzxid, stat.mzxid);
  // A value may be a secret: kept by no shared cache, revalidated by the browser each time.
  res.setHeader('Cache-Control', 'private, no-cache');
  res.attachment(fileNameOf(gateway.name, path));
  res.type('application/octet-stream');
  res.send(data ?? Buffer.alloc(0));
  return SENT;
};

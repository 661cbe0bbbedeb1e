/** Turns request data (UTF-8 text or base64) into the bytes to write, within ZooKeeper's limit. */
import { MAX_ZNODE_DATA_BYTES, type InputEncoding } from '@keeper/shared';
import { OpError } from '../admin/opError.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeInputData(data: string | undefined, encoding: InputEncoding | undefined): Buffer {
  if (data === undefined) return Buffer.alloc(0);
  let bytes: Buffer;
  if (encoding === 'base64') {
    // Buffer.from silently skips junk; a typo must not become different bytes on the ensemble.
    if (!BASE64.test(data)) throw new OpError('INVALID_DATA', 'data is not valid base64 (standard alphabet, padded)');
    bytes = Buffer.from(data, 'base64');
  } else {
    bytes = Buffer.from(data, 'utf8');
  }
  if (bytes.length > MAX_ZNODE_DATA_BYTES) {
    // The exact limit (jute.maxbuffer, counting path and protocol) is checked in ZkMutations; this is the client library's own ceiling.
    throw new OpError(
      'DATA_TOO_LARGE',
      `data is ${bytes.length.toLocaleString('en-US')} bytes; Keeper writes at most ${MAX_ZNODE_DATA_BYTES.toLocaleString('en-US')} bytes into a znode, and ZooKeeper's jute.maxbuffer (1,048,575 by default, counting the path and protocol too) allows a little less`,
    );
  }
  return bytes;
}

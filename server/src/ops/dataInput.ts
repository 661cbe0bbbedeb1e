/** Turns request data (UTF-8 text or base64) into the bytes to write, within ZooKeeper's limit. */
import { MAX_ZNODE_DATA_BYTES, type InputEncoding } from '@keeper/shared';
import { OpError } from './opError.js';

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
    throw new OpError('DATA_TOO_LARGE', `data is ${bytes.length} bytes; ZooKeeper's default limit (jute.maxbuffer) is ${MAX_ZNODE_DATA_BYTES} bytes`);
  }
  return bytes;
}

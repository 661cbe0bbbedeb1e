/** A znode path from a route's URL, checked before a read uses it: 400 INVALID_PATH naming what is wrong. */
import { checkPath } from '@keeper/shared';
import { OpError } from '../admin/opError.js';

export function validPathOr400(path: string): void {
  const check = checkPath(path);
  if (!check.ok) throw new OpError('INVALID_PATH', `invalid path ${JSON.stringify(path)}: ${check.reason}`);
}

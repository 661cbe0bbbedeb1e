/** node-zookeeper-client's Stat (longs as 8-byte Buffers) to the wire's ZnodeStat (hex ids, ms times). */
import type zookeeper from 'node-zookeeper-client';
import { formatSessionId, formatZxid, type ZnodeStat } from '@keeper/shared';

function long(value: unknown): bigint {
  if (Buffer.isBuffer(value) && value.length === 8) return value.readBigInt64BE(0);
  if (typeof value === 'number') return BigInt(value);
  return 0n;
}

export function toZnodeStat(stat: zookeeper.Stat): ZnodeStat {
  return {
    czxid: formatZxid(long(stat.czxid)),
    mzxid: formatZxid(long(stat.mzxid)),
    pzxid: formatZxid(long(stat.pzxid)),
    ctime: Number(long(stat.ctime)),
    mtime: Number(long(stat.mtime)),
    version: stat.version,
    cversion: stat.cversion,
    aversion: stat.aversion,
    ephemeralOwner: formatSessionId(long(stat.ephemeralOwner)),
    dataLength: stat.dataLength,
    numChildren: stat.numChildren,
  };
}

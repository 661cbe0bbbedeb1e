/** Session ids as ZooKeeper prints them: 0x followed by lower-case hex, no padding. */
export function formatSessionId(id: bigint): string {
  return `0x${BigInt.asUintN(64, id).toString(16)}`;
}

/** Zxids likewise print as hex; the epoch is the high 32 bits. */
export function formatZxid(zxid: bigint): string {
  return `0x${BigInt.asUintN(64, zxid).toString(16)}`;
}

export function zxidEpoch(zxid: bigint): number {
  return Number(BigInt.asUintN(64, zxid) >> 32n);
}

export function zxidCounter(zxid: bigint): number {
  return Number(BigInt.asUintN(64, zxid) & 0xffffffffn);
}

export const NO_SESSION = '0x0';

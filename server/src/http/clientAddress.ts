/**
 * The client's address for rate limits and the audit trail. Behind a trusted proxy (`trustProxy`)
 * it comes from X-Forwarded-For, as Express's req.ip does; the socket upgrade never passes
 * through Express, so it walks the same trust function here.
 */
import type { IncomingMessage } from 'node:http';

export type TrustFn = (address: string, hop: number) => boolean;

export function clientAddress(req: IncomingMessage, trust: TrustFn): string {
  const socketAddress = req.socket.remoteAddress ?? 'unknown';
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .reverse();
  // Nearest first: the socket peer, then each hop it says it forwarded for, while trusted.
  const chain = [socketAddress, ...forwarded];
  let address = socketAddress;
  for (let hop = 0; hop < chain.length - 1; hop++) {
    if (!trust(chain[hop]!, hop)) break;
    address = chain[hop + 1]!;
  }
  return address;
}

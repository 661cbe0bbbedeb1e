/** A znode's stat and its data as the console shows it: used by the socket's topics and the HTTP API alike. */
import { z } from 'zod/mini';

export const statSchema = z.object({
  czxid: z.string(),
  mzxid: z.string(),
  pzxid: z.string(),
  ctime: z.number(),
  mtime: z.number(),
  version: z.number(),
  cversion: z.number(),
  aversion: z.number(),
  /** '0x0' for persistent nodes, else the owning session id. */
  ephemeralOwner: z.string(),
  dataLength: z.number(),
  numChildren: z.number(),
});
export type ZnodeStat = z.infer<typeof statSchema>;

export const encodedDataSchema = z.object({
  encoding: z.enum(['utf8', 'json', 'base64']),
  value: z.string(),
  size: z.number(),
  truncated: z.boolean(),
});

/**
 * A lock directory's children with their owners, read by kazoo: the tests' witness of what a
 * scenario made, sharing no code with Keeper (kazooGet and kazooSnapshot do not give owners).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PYTHON } from '../kazoo/process.js';
import { KAZOO_LOCKS_PY } from './kazooContender.js';

const run = promisify(execFile);

export interface OwnedChild {
  name: string;
  /** 0x0 for a persistent node. */
  ephemeralOwner: string;
  data: string;
  czxid: number;
  version: number;
}

/** The children of `path` (none when it does not exist), in getChildren's order. */
export async function kazooChildren(hosts: string, path: string): Promise<OwnedChild[]> {
  const { stdout } = await run(PYTHON, [KAZOO_LOCKS_PY, 'inspect', JSON.stringify({ hosts, path })], { timeout: 60_000 });
  const line = stdout.split('\n').find((l) => l.includes('"children"'));
  if (!line) throw new Error(`kazoo inspect ${path}: no answer`);
  return (JSON.parse(line) as { children: OwnedChild[] }).children;
}

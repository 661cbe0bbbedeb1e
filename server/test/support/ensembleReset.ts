/**
 * Puts a shared test ensemble back to what a fresh one looks like between test files: no
 * session left (each file closes its own; one that lingers is a file's leak), and no znode
 * outside /zookeeper. When it cannot (a session still open, a tree too big to delete quickly),
 * it says why, and the pool retires that ensemble instead. The cleaner signs in as ZooKeeper's
 * super user (the pool's ensembles are started with SUPER_DIGEST_CONFIG), so a node a test
 * locked with an ACL is no obstacle; no test uses that identity.
 */
import { createHash } from 'node:crypto';
import type zookeeper from 'node-zookeeper-client';
import { fourLetterWord } from '../../../scripts/sandbox/index.js';
import { connectRaw, type RawClient } from './rawClient.js';

/** Past this many znodes a fresh ensemble is quicker than deleting them (a file that made 100,000 contenders). */
export const MAX_ZNODES_TO_CLEAN = 2_000;
/** How long a file's sessions may take to close after it released the ensemble (Keeper's close is awaited; kazoo's exit is not). */
const SESSIONS_GONE_WITHIN_MS = 3_000;
/** Deletes sent in one multi request. */
const BATCH = 200;
const SUPER = 'super:keeper-pool-cleaner';

/** The zoo.cfg line of the pool's ensembles (ZooKeeper makes an unknown key a `zookeeper.` system property). */
export const SUPER_DIGEST_CONFIG = {
  'DigestAuthenticationProvider.superDigest': `super:${createHash('sha1').update(SUPER).digest('base64')}`,
};

export interface LeaderProbe {
  host: string;
  clientPort: number;
}

/** The leader's own counters: sessions the whole ensemble holds, and znodes in its tree. */
export async function leaderCounts(leader: LeaderProbe): Promise<{ sessions: number; znodes: number }> {
  const mntr = await fourLetterWord(leader.host, leader.clientPort, 'mntr', 3_000);
  const read = (key: string) => {
    const value = new RegExp(`^${key}\\s+(\\d+)$`, 'm').exec(mntr)?.[1];
    if (value === undefined) throw new Error(`mntr of ${leader.host}:${leader.clientPort} has no ${key}`);
    return Number(value);
  };
  return { sessions: read('zk_global_sessions'), znodes: read('zk_znode_count') };
}

async function sessionsGone(leader: LeaderProbe, withinMs: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const { sessions } = await leaderCounts(leader);
    if (sessions === 0 || Date.now() > deadline) return sessions;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function promised<T>(run: (cb: (error: unknown, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
}

/** Every znode under `path`, deepest first (so each is deleted after its children). */
async function below(client: zookeeper.Client, path: string): Promise<string[]> {
  const children = await promised<string[]>((cb) => client.getChildren(path, (e, c) => cb(e, c)));
  const out: string[] = [];
  for (const child of children) {
    const full = path === '/' ? `/${child}` : `${path}/${child}`;
    out.push(...(await below(client, full)), full);
  }
  return out;
}

/** Null when the ensemble is as good as fresh again; else why it is not. */
export async function resetEnsemble(connectionString: string, leader: LeaderProbe): Promise<string | null> {
  try {
    const lingering = await sessionsGone(leader, SESSIONS_GONE_WITHIN_MS);
    if (lingering > 0) return `${lingering} session(s) still open ${SESSIONS_GONE_WITHIN_MS} ms after the file released it`;
    const { znodes } = await leaderCounts(leader);
    if (znodes > MAX_ZNODES_TO_CLEAN) return `${znodes} znodes: quicker to start a fresh ensemble`;
    let raw: RawClient | null = null;
    try {
      raw = await connectRaw(connectionString);
      const client = raw.client;
      client.addAuthInfo('digest', Buffer.from(SUPER));
      const tops = (await promised<string[]>((cb) => client.getChildren('/', (e, c) => cb(e, c)))).filter((c) => c !== 'zookeeper');
      const doomed: string[] = [];
      for (const top of tops) doomed.push(...(await below(client, `/${top}`)), `/${top}`);
      for (let i = 0; i < doomed.length; i += BATCH) {
        const tx = client.transaction();
        for (const path of doomed.slice(i, i + BATCH)) tx.remove(path, -1);
        await promised((cb) => tx.commit((e) => cb(e)));
      }
    } finally {
      raw?.close();
    }
    const left = await sessionsGone(leader, SESSIONS_GONE_WITHIN_MS);
    return left > 0 ? `the cleaner's own session did not close (${left} open)` : null;
  } catch (error) {
    return `could not clean it: ${(error as Error).message}`;
  }
}

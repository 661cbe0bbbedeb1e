/**
 * Viewers hammering the Locks view from their own process (so their own parsing does not run on
 * Keeper's event loop, as it would not for real browsers): `http` loops each fetching the list, a
 * filtered list and a lock's page back to back, and `sockets` WebSockets each subscribing and
 * unsubscribing the `locks` and `lock` topics as fast as the server acknowledges. For the locks
 * load test and bench/locks.ts (issue 25, item 1).
 *
 *   node --import tsx scripts/lib/locks/viewerLoad.ts '<json plan>'   prints one JSON line at the end
 *
 * startViewerLoad() runs it and resolves with what it did.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { PROTOCOL_VERSION } from '@keeper/shared';

/** Who a viewer is: a bearer token, or a share link's session cookie. */
export interface ViewerIdentity {
  token?: string;
  cookie?: string;
}

export interface ViewerLoadPlan {
  url: string;
  /** Each HTTP loop and each socket takes the next one (round robin): distinct people, each with their own rate limit. */
  identities: ViewerIdentity[];
  ensemble: string;
  /** Lock directories to open, picked at random. */
  paths: string[];
  durationMs: number;
  http: number;
  sockets: number;
}

export interface ViewerLoadResult {
  requests: number;
  /** Answered 429 by the per-identity rate limit. */
  limited: number;
  bytes: number;
  subscribes: number;
  frames: number;
  errors: number;
}

const SELF = fileURLToPath(import.meta.url);

/** Runs the viewers in a child process; resolves when they are done. */
export function startViewerLoad(plan: ViewerLoadPlan): { done: Promise<ViewerLoadResult>; stop(): void } {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, JSON.stringify(plan)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<ViewerLoadResult>((resolve, reject) => {
    child.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as ViewerLoadResult);
      } catch {
        reject(new Error(`viewer load exited ${code}: ${err.slice(-2000)}`));
      }
    });
  });
  return { done, stop: () => child.kill('SIGKILL') };
}

async function run(plan: ViewerLoadPlan): Promise<ViewerLoadResult> {
  const result: ViewerLoadResult = { requests: 0, limited: 0, bytes: 0, subscribes: 0, frames: 0, errors: 0 };
  const until = Date.now() + plan.durationMs;
  const pick = () => plan.paths[Math.floor(Math.random() * plan.paths.length)]!;
  const base = `${plan.url}/api/ensembles/${encodeURIComponent(plan.ensemble)}`;
  let next = 0;
  const headersOf = (who: ViewerIdentity): Record<string, string> =>
    who.token ? { authorization: `Bearer ${who.token}` } : who.cookie ? { cookie: who.cookie } : {};
  const nextHeaders = () => headersOf(plan.identities[next++ % plan.identities.length]!);
  const fetchOne = async (path: string, headers: Record<string, string>) => {
    try {
      const res = await fetch(`${base}${path}`, { headers });
      if (res.status === 429) result.limited += 1;
      result.bytes += (await res.arrayBuffer()).byteLength;
      result.requests += 1;
    } catch {
      result.errors += 1;
    }
  };
  const httpLoop = async () => {
    const headers = nextHeaders();
    while (Date.now() < until) {
      await fetchOne('/locks', headers);
      await fetchOne(`/locks?q=${encodeURIComponent(pick().slice(-3))}`, headers);
      await fetchOne(`/locks${pick()}`, headers);
    }
  };
  const socketLoop = async () => {
    const headers = nextHeaders();
    const socket = new WebSocket(`${plan.url.replace(/^http/, 'ws')}/ws`, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const acks = new Map<string, () => void>();
    socket.on('message', (data: Buffer) => {
      result.frames += 1;
      const message = JSON.parse(data.toString()) as { type: string; id?: string };
      if ((message.type === 'ack' || message.type === 'error') && message.id) acks.get(message.id)?.();
    });
    let n = 0;
    const send = (type: 'subscribe' | 'unsubscribe', topic: string, params: unknown) =>
      new Promise<void>((resolve) => {
        const id = `v${n++}`;
        const timer = setTimeout(resolve, 2_000);
        acks.set(id, () => {
          clearTimeout(timer);
          acks.delete(id);
          resolve();
        });
        socket.send(JSON.stringify({ type, topic, ensemble: plan.ensemble, params, id }));
      });
    socket.send(JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION }));
    while (Date.now() < until && socket.readyState === WebSocket.OPEN) {
      const lock = { path: pick() };
      const list = { q: pick().slice(-2) };
      await send('subscribe', 'locks', list);
      await send('subscribe', 'lock', lock);
      result.subscribes += 2;
      await send('unsubscribe', 'locks', list);
      await send('unsubscribe', 'lock', lock);
    }
    socket.close();
  };
  await Promise.all([...Array.from({ length: plan.http }, httpLoop), ...Array.from({ length: plan.sockets }, socketLoop)]);
  return result;
}

if (process.argv[1] === SELF) {
  run(JSON.parse(process.argv[2]!) as ViewerLoadPlan).then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
}

/**
 * Another client's write to the new value seen, on three sides at once: a raw client watching
 * the znode (the watch firing plus the getData re-read returning the new value, which is what
 * any client must do to see a value), Keeper's shared watch registry (in-process, before the
 * hub, outbox and socket), and a browser's `znode` message. All are timed from the same write's
 * start. Writes are sequential: the next starts ~SPACING_MS after every side saw the last one.
 * Used by bench/latency.ts and bench/secure.ts.
 */
import zookeeper from 'node-zookeeper-client';
import type { WatchListener } from '../../server/src/zk/watchRegistry.js';
import { ENSEMBLE, type BenchEnv } from './benchEnv.js';
import { BenchBrowser } from './browser.js';
import { sleep, until, within, type Scope } from './lifecycle.js';
import type { RawZk } from './rawZk.js';

export const SPACING_MS = 20;
export const SAMPLE_TIMEOUT_MS = 2_000;

export interface WriteSample {
  start: number;
  ack?: number;
  raw?: number;
  keeperServer?: number;
  browser?: number;
  settle?: () => void;
}

/** Milliseconds from each measured write's start to what each side saw. */
export interface WriteLatencies {
  ack: number[];
  raw: number[];
  keeperServer: number[];
  browser: number[];
  /** The registry having the value to the browser's frame: the hub, outbox and socket. */
  hub: number[];
}

export interface WriteLatencyProbe {
  /** `warmup` writes thrown away, then `samples` writes; those not seen by every side within SAMPLE_TIMEOUT_MS are missed. */
  run(warmup: number, samples: number): Promise<{ measured: WriteSample[]; missed: number }>;
  /** What went wrong on the raw watcher or the registry (the run goes on). */
  readonly errors: string[];
}

/** The raw watcher: getData with a watch; on each data change, re-read with a new watch. */
function watchRaw(raw: RawZk, path: string, onValue: (value: string, at: number) => void, onError: (error: unknown) => void): void {
  const arm = () => {
    raw
      .getData(path, (event) => {
        if (event.getType() === zookeeper.Event.NODE_DATA_CHANGED) arm();
      })
      .then((data) => onValue(data.toString('utf8'), performance.now()), onError);
  };
  arm();
}

/**
 * Arms the three watchers on `path` (created by `writer`): `watcher` should be on Keeper's
 * member (env.keeperMember), so the raw side and Keeper hear of the write from the same member.
 */
export async function watchWrites(scope: Scope, env: BenchEnv, path: string, writer: RawZk, watcher: RawZk): Promise<WriteLatencyProbe> {
  await writer.mkdirp(path);
  await writer.setData(path, 'initial');

  const samples = new Map<string, WriteSample>();
  const complete = (s: WriteSample) => s.raw !== undefined && s.browser !== undefined && s.keeperServer !== undefined;
  const observe = (value: string | null, at: number, side: 'raw' | 'browser' | 'keeperServer') => {
    const s = value === null ? undefined : samples.get(value);
    if (!s || s[side] !== undefined) return;
    s[side] = at;
    if (complete(s)) s.settle?.();
  };

  const errors: string[] = [];
  watchRaw(
    watcher,
    path,
    (value, at) => observe(value, at, 'raw'),
    (error) => errors.push(`raw watcher: ${String(error)}`),
  );

  const registryListener: WatchListener = {
    onNode: (node) => observe(node.exists ? node.data.value : null, performance.now(), 'keeperServer'),
    onChildren: () => undefined,
    onWatchEvent: () => undefined,
    onError: (error) => errors.push(`registry: ${error.message}`),
  };
  const unwatch = env.gateway.watches.watch(path, registryListener);
  scope.defer('unwatch registry listener', unwatch);

  const browser = await BenchBrowser.open(env.keeper.url);
  scope.defer('close browser', () => browser.close());
  browser.onZnode = (p, value, at) => {
    if (p === path) observe(value, at, 'browser');
  };
  browser.subscribe('znode', ENSEMBLE, { path });
  await until(() => browser.values.get(path) === 'initial', 'the browser to see the znode', { timeoutMs: 10_000, signal: scope.signal });

  let written = 0;
  return {
    errors,
    async run(warmup, count) {
      const measured: WriteSample[] = [];
      let missed = 0;
      for (let i = 0; i < warmup + count; i++) {
        const value = `v${written++}`;
        const sample: WriteSample = { start: 0 };
        const settled = new Promise<void>((resolve) => (sample.settle = resolve));
        samples.set(value, sample);
        sample.start = performance.now();
        await writer.setData(path, value);
        sample.ack = performance.now();
        const timedOut = !(await within(settled, SAMPLE_TIMEOUT_MS, scope.signal));
        samples.delete(value);
        if (timedOut) missed++;
        else if (i >= warmup) measured.push(sample);
        await sleep(SPACING_MS, scope.signal);
      }
      return { measured, missed };
    },
  };
}

export function writeLatencies(measured: readonly WriteSample[]): WriteLatencies {
  const lat = (pick: (s: WriteSample) => number | undefined) => measured.map((s) => pick(s)! - s.start);
  return {
    ack: lat((s) => s.ack),
    raw: lat((s) => s.raw),
    keeperServer: lat((s) => s.keeperServer),
    browser: lat((s) => s.browser),
    hub: measured.map((s) => s.browser! - s.keeperServer!),
  };
}

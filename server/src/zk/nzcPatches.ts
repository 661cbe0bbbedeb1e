/**
 * Where node-zookeeper-client 1.1.3's defects and gaps are contained (see the project notes):
 *  - defect 1: an error code the library does not know (ZooKeeper 3.5+ codes such as
 *    QUOTA_EXCEEDED -125 or THROTTLED_OP -127, sent under overload) makes its
 *    Exception.create throw "Unknown code" from inside the socket data handler, which kills
 *    the whole process. We wrap the module's factory once so unknown codes become ordinary
 *    exception objects.
 *  - the missing removeWatches (ZooKeeper 3.5+, op code 18): `removeWatches` below sends it
 *    through the library's own queue, so it gets an xid, keeps its place in the session's
 *    request order and is answered through the library's pending queue like any call.
 *  - cost per request, which a flood pays thousands of times (a browser subscribing to 5,000
 *    paths, a lock scan, every watch re-read after a new session): the library writes each
 *    request to the socket on its own, one system call each, and captures a stack trace for each
 *    error reply (NO_NODE from every exists of a missing path), a trace of its socket handler
 *    that says nothing of the caller. Requests queued in the same tick now leave in one write,
 *    and error replies carry no trace. In limits.integration.test.ts's flood the two took 28% of
 *    the process's CPU (profiled: 15.2 s in writes and 5.2 s in traces of 71 s).
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { ZK_ERROR_NAMES } from './errors.js';
import { disguisedRequest, type JuteRecord } from './disguisedRequest.js';

interface ExceptionModule {
  create: (code: number, path?: string) => Error;
  __keeperPatched?: boolean;
}

/** The parts of the library's ConnectionManager the write batching touches. */
interface ConnectionManagerPrototype {
  onPacketQueueReadable(this: { socket?: Socket | null; state: number }): void;
}

/** ConnectionManager's CLOSING: the close-session request is the last write, sent at once. */
const CM_STATE_CLOSING = -1;

const require = createRequire(import.meta.url);

export class UnknownZkCodeError extends Error {
  constructor(
    readonly code: number,
    readonly path?: string,
  ) {
    const name = ZK_ERROR_NAMES[code] ?? `ZK_ERROR_${code}`;
    super(`Exception: ${name}[${code}]${path ? `@${path}` : ''}`);
    this.name = name;
  }
  getCode(): number {
    return this.code;
  }
  getName(): string {
    return this.name;
  }
  getPath(): string | undefined {
    return this.path;
  }
}

export function patchNodeZookeeperClient(): void {
  const exceptionModule = require('node-zookeeper-client/lib/Exception.js') as ExceptionModule;
  if (exceptionModule.__keeperPatched) return;
  const original = exceptionModule.create;
  exceptionModule.create = (code: number, path?: string) => {
    const traceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return original(code, path);
    } catch {
      return new UnknownZkCodeError(code, path);
    } finally {
      Error.stackTraceLimit = traceLimit;
    }
  };
  exceptionModule.__keeperPatched = true;
  batchSocketWrites(require('node-zookeeper-client/lib/ConnectionManager.js') as { prototype: ConnectionManagerPrototype });
}

/**
 * The library writes every queued request as soon as it is queued (its `readable` event fires
 * per request). Corked until the end of the tick, the requests a caller queues together leave in
 * one writev: the same bytes in the same order. Back pressure is unchanged (write() still answers
 * false past the high-water mark, and `drain` resumes). The close-session request is flushed at
 * once, so a process that exits right after closing still tells the ensemble.
 */
function batchSocketWrites(connectionManager: { prototype: ConnectionManagerPrototype }): void {
  const proto = connectionManager.prototype;
  const original = proto.onPacketQueueReadable;
  proto.onPacketQueueReadable = function onPacketQueueReadable() {
    const socket = this.socket;
    if (!socket) return original.call(this);
    socket.cork();
    try {
      original.call(this);
    } finally {
      // Corked once per call: the close-session request flushes every cork still pending (a later uncork is a no-op).
      if (this.state === CM_STATE_CLOSING) while (socket.writableCorked > 0) socket.uncork();
      else process.nextTick(() => socket.uncork());
    }
  };
}

patchNodeZookeeperClient();

/** ZooKeeper's WatcherType for removeWatches. */
export const WATCHER_TYPE = { children: 1, data: 2, any: 3 } as const;
export type WatcherType = (typeof WATCHER_TYPE)[keyof typeof WATCHER_TYPE];

const OP_REMOVE_WATCHES = 18;

interface JuteModule {
  protocol: { CheckVersionRequest: new () => JuteRecord & { path: string; version: number } };
}

/** The parts of the library's client we reach into: its connection manager's queue and watcher table. */
interface ClientInternals {
  connectionManager: {
    queue(request: unknown, callback: (error: unknown) => void): void;
    watcherManager: Record<'dataWatchers' | 'childWatchers' | 'existenceWatchers', Record<string, unknown>>;
  };
}

const jute = require('node-zookeeper-client/lib/jute/index.js') as JuteModule;

/**
 * Sends ZooKeeper's removeWatches for `path` through the client's own queue. The request is
 * `{path: ustring, type: int}`, which has exactly the layout of the library's
 * CheckVersionRequest `{path, version}` (chroot handling included), so that record carries it.
 * The reply is a bare header; the library only knows how to read a reply by the request's
 * type, and an op code it does not know makes it drop the connection. So it is sent disguised
 * (disguisedRequest.ts) as DELETE, whose reply is also a bare header. Errors come back as the library's exceptions: NO_WATCHER (-121) when nothing
 * was left to remove, UNIMPLEMENTED (-6) from a server older than 3.5.
 *
 * Whatever the answer, the library's own client-side registration for the path is dropped, or
 * a later event would still be dispatched and the path re-armed by SetWatches on reconnect.
 */
export function removeWatches(client: unknown, path: string, type: WatcherType, callback: (error: unknown) => void): void {
  const internals = client as ClientInternals;
  const payload = new jute.protocol.CheckVersionRequest();
  payload.path = path;
  payload.version = type;
  internals.connectionManager.queue(disguisedRequest(OP_REMOVE_WATCHES, 'DELETE', payload), (error: unknown) => {
    // On a reply, and also when the connection drops with the request pending: the library
    // calls back before it reconnects, so SetWatches will not re-arm the path either.
    forgetClientWatchers(client, path, type);
    callback(error ?? null);
  });
}

/** Drops the library's client-side watcher registration of one path (every function registered there). */
export function forgetClientWatchers(client: unknown, path: string, type: WatcherType = WATCHER_TYPE.any): void {
  const watchers = (client as ClientInternals).connectionManager.watcherManager;
  if (type !== WATCHER_TYPE.children) {
    delete watchers.dataWatchers[path];
    delete watchers.existenceWatchers[path];
  }
  if (type !== WATCHER_TYPE.data) delete watchers.childWatchers[path];
}

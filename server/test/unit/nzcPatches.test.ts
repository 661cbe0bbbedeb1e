import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { toZkError } from '../../src/zk/errors.js';
import { patchNodeZookeeperClient, UnknownZkCodeError } from '../../src/zk/nzcPatches.js';

const require = createRequire(import.meta.url);

interface LibraryException extends Error {
  code: number;
  path?: string;
  getCode(): number;
  getName(): string;
  getPath(): string | undefined;
}

interface ExceptionModule {
  (...args: never[]): LibraryException;
  create: (code: number, path?: string) => LibraryException;
  NO_NODE: number;
}

const Exception = require('node-zookeeper-client/lib/Exception.js') as ExceptionModule;

describe('nzcPatches', () => {
  it('makes create() return THROTTLED_OP for -127 instead of throwing', () => {
    let error: LibraryException | undefined;
    expect(() => (error = Exception.create(-127))).not.toThrow();
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(UnknownZkCodeError);
    expect(error!.name).toBe('THROTTLED_OP');
    expect(error!.getCode()).toBe(-127);
    expect(error!.getName()).toBe('THROTTLED_OP');
    expect(error!.message).toBe('Exception: THROTTLED_OP[-127]');
  });

  it('handles other unknown codes, with a path', () => {
    const quota = Exception.create(-125, '/q');
    expect(quota.name).toBe('QUOTA_EXCEEDED');
    expect(quota.getPath()).toBe('/q');
    expect(quota.message).toBe('Exception: QUOTA_EXCEEDED[-125]@/q');
    const odd = Exception.create(-999);
    expect(odd.name).toBe('ZK_ERROR_-999');
    expect(odd.getCode()).toBe(-999);
  });

  it("still produces the library's own exception for codes it knows", () => {
    const e = Exception.create(Exception.NO_NODE, '/missing');
    expect(e).toBeInstanceOf(Exception);
    expect(e).not.toBeInstanceOf(UnknownZkCodeError);
    expect(e.getCode()).toBe(-101);
    expect(e.getName()).toBe('NO_NODE');
    expect(e.getPath()).toBe('/missing');
    expect(e.message).toBe('Exception: NO_NODE[-101]@/missing');
    expect(Exception.create(-4).getName()).toBe('CONNECTION_LOSS');
  });

  it('patches the module instance the library itself uses', () => {
    const lib = require('node-zookeeper-client') as { Exception: ExceptionModule };
    expect(lib.Exception).toBe(Exception);
    expect(() => lib.Exception.create(-127)).not.toThrow();
  });

  it('is idempotent', () => {
    const before = Exception.create;
    patchNodeZookeeperClient();
    patchNodeZookeeperClient();
    expect(Exception.create).toBe(before);
    expect(Exception.create(-127).name).toBe('THROTTLED_OP');
  });

  it('produces errors toZkError understands', () => {
    expect(toZkError(Exception.create(-127), '/x')).toMatchObject({ code: 'THROTTLED_OP', path: '/x', transient: true });
    expect(toZkError(Exception.create(-101))).toMatchObject({ code: 'NO_NODE', transient: false });
  });

  it('gives error replies no stack trace (a trace of the socket handler, paid per reply), and leaves the limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const e = Exception.create(Exception.NO_NODE, '/missing');
    expect(e.stack).toContain('Exception: NO_NODE[-101]@/missing');
    expect(e.stack).not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('mine').stack).toMatch(/\n\s+at /);
  });
});

/** A socket that records each write the kernel would get: one entry per writev, with its chunks. */
class RecordingSocket extends Writable {
  readonly writes: string[][] = [];
  override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
    this.writes.push(chunks.map((c) => c.chunk.toString()));
    done();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.writes.push([chunk.toString()]);
    done();
  }
}

interface FakeManager {
  state: number;
  socket: RecordingSocket;
  xid: number;
  packetQueue: { shift(): unknown };
  pendingQueue: { push(packet: unknown): void };
}

const ConnectionManager = require('node-zookeeper-client/lib/ConnectionManager.js') as {
  prototype: { onPacketQueueReadable(this: FakeManager): void };
};
const OP_EXISTS = 3;
const OP_CLOSE_SESSION = -11;

/** The library's connection manager with only what onPacketQueueReadable reads; `queue` is how the library's queue fires `readable`. */
function fakeManager(state: number) {
  const packets: unknown[] = [];
  const pending: unknown[] = [];
  const manager: FakeManager = {
    state,
    socket: new RecordingSocket(),
    xid: 1,
    packetQueue: { shift: () => packets.shift() },
    pendingQueue: { push: (p) => pending.push(p) },
  };
  const add = (body: string, type = OP_EXISTS) => packets.push({ request: { header: { type, xid: 0 }, toBuffer: () => Buffer.from(body) } });
  const readable = () => ConnectionManager.prototype.onPacketQueueReadable.call(manager);
  const queue = (body: string, type = OP_EXISTS) => {
    add(body, type);
    readable();
  };
  return { manager, queue, pending, add, readable, packets };
}

describe('nzcPatches: requests queued together leave in one write', () => {
  it('sends the requests of one tick in a single writev, in order, each still given its xid and awaited', async () => {
    const { manager, queue, pending } = fakeManager(2);
    queue('a');
    queue('b');
    queue('c');
    expect(manager.socket.writes).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(manager.socket.writes).toEqual([['a', 'b', 'c']]);
    expect(pending).toHaveLength(3);
    expect(manager.xid).toBe(4);
    // The next tick's requests are a write of their own.
    queue('d');
    await new Promise((resolve) => process.nextTick(resolve));
    expect(manager.socket.writes).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('sends the close-session request at once, with what was queued before it', () => {
    const { manager, queue } = fakeManager(2);
    queue('a');
    manager.state = -1; // CLOSING
    queue('close', OP_CLOSE_SESSION);
    expect(manager.socket.writes).toEqual([['a', 'close']]);
  });

  it("keeps the library's back pressure: past the high-water mark the rest waits in the queue for drain", async () => {
    const { manager, add, readable, packets } = fakeManager(2);
    const big = 'x'.repeat(manager.socket.writableHighWaterMark);
    add(big);
    add('waits');
    readable();
    await new Promise((resolve) => process.nextTick(resolve));
    expect(manager.socket.writes).toEqual([[big]]);
    expect(packets).toHaveLength(1);
    readable(); // what the library's drain handler calls
    await new Promise((resolve) => process.nextTick(resolve));
    expect(manager.socket.writes).toEqual([[big], ['waits']]);
  });
});

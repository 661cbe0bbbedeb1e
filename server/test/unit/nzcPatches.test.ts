import { createRequire } from 'node:module';
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
});

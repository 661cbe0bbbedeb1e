import { describe, expect, it } from 'vitest';
import { toZkError, ZK_ERROR_NAMES, ZkError } from '../../src/zk/errors.js';

describe('ZkError', () => {
  it('is an Error with a code, message and optional path', () => {
    const e = new ZkError('NO_NODE', 'no node', '/a');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ZkError');
    expect(e.code).toBe('NO_NODE');
    expect(e.message).toBe('no node');
    expect(e.path).toBe('/a');
    expect(new ZkError('CLOSED', 'closed').path).toBeUndefined();
  });

  it('marks only retryable conditions as transient', () => {
    for (const code of ['CONNECTION_LOSS', 'OPERATION_TIMEOUT', 'SESSION_EXPIRED', 'SESSION_MOVED', 'REQUEST_TIMEOUT', 'THROTTLED_OP', 'NOT_CONNECTED']) {
      expect(new ZkError(code, '').transient, code).toBe(true);
    }
    for (const code of [
      'NO_NODE',
      'NODE_EXISTS',
      'NO_AUTH',
      'AUTH_FAILED',
      'BAD_ARGUMENTS',
      'BAD_VERSION',
      'NOT_EMPTY',
      'INVALID_ACL',
      'QUOTA_EXCEEDED',
      'SYSTEM_ERROR',
      'INVALID_PATH',
      'ZK_ERROR_-999',
    ]) {
      expect(new ZkError(code, '').transient, code).toBe(false);
    }
  });
});

describe('ZK_ERROR_NAMES', () => {
  it('names the codes ZooKeeper sends, including 3.5+ ones', () => {
    expect(ZK_ERROR_NAMES[-4]).toBe('CONNECTION_LOSS');
    expect(ZK_ERROR_NAMES[-101]).toBe('NO_NODE');
    expect(ZK_ERROR_NAMES[-110]).toBe('NODE_EXISTS');
    expect(ZK_ERROR_NAMES[-112]).toBe('SESSION_EXPIRED');
    expect(ZK_ERROR_NAMES[-118]).toBe('SESSION_MOVED');
    expect(ZK_ERROR_NAMES[-122]).toBe('REQUEST_TIMEOUT');
    expect(ZK_ERROR_NAMES[-125]).toBe('QUOTA_EXCEEDED');
    expect(ZK_ERROR_NAMES[-127]).toBe('THROTTLED_OP');
  });

  it('has unique names', () => {
    const names = Object.values(ZK_ERROR_NAMES);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('toZkError', () => {
  it('returns a ZkError unchanged', () => {
    const e = new ZkError('OVERLOADED', 'busy');
    expect(toZkError(e)).toBe(e);
    expect(toZkError(e, '/other')).toBe(e);
  });

  it('maps an object with a numeric code (node-zookeeper-client exceptions)', () => {
    const e = toZkError({ code: -101, message: 'Exception: NO_NODE[-101]@/a' }, '/a');
    expect(e).toBeInstanceOf(ZkError);
    expect(e.code).toBe('NO_NODE');
    expect(e.message).toBe('NO_NODE (-101) at /a');
    expect(e.path).toBe('/a');
    expect(e.transient).toBe(false);
  });

  it('maps an object with getCode()', () => {
    const e = toZkError({ getCode: () => -4 });
    expect(e.code).toBe('CONNECTION_LOSS');
    expect(e.message).toBe('CONNECTION_LOSS (-4)');
    expect(e.path).toBeUndefined();
    expect(e.transient).toBe(true);
  });

  it('maps the 3.5+ codes the client library does not know', () => {
    expect(toZkError({ code: -125 })).toMatchObject({ code: 'QUOTA_EXCEEDED', message: 'QUOTA_EXCEEDED (-125)' });
    const throttled = toZkError({ getCode: () => -127 }, '/busy');
    expect(throttled).toMatchObject({ code: 'THROTTLED_OP', message: 'THROTTLED_OP (-127) at /busy', path: '/busy' });
    expect(throttled.transient).toBe(true);
    expect(toZkError({ code: -122 }).transient).toBe(true);
  });

  it('maps every named code to its name', () => {
    for (const [code, name] of Object.entries(ZK_ERROR_NAMES)) {
      expect(toZkError({ code: Number(code) }).code).toBe(name);
    }
  });

  it('keeps an unknown numeric code recognisable', () => {
    expect(toZkError({ code: -999 })).toMatchObject({ code: 'ZK_ERROR_-999', message: 'ZK_ERROR_-999 (-999)' });
    expect(toZkError({ code: 0 }).code).toBe('ZK_ERROR_0');
  });

  it('prefers a numeric code property over getCode()', () => {
    expect(toZkError({ code: -101, getCode: () => -4 }).code).toBe('NO_NODE');
  });

  it('turns a plain error into SYSTEM_ERROR with its message', () => {
    const e = toZkError(new Error('socket hang up'), '/x');
    expect(e).toMatchObject({ code: 'SYSTEM_ERROR', message: 'socket hang up', path: '/x' });
    expect(e.transient).toBe(false);
  });

  it('treats a string code (Node system errors) as a plain error', () => {
    const sys = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(toZkError(sys)).toMatchObject({ code: 'SYSTEM_ERROR', message: 'read ECONNRESET' });
  });

  it('copes with values that are not errors at all', () => {
    expect(toZkError('just a string')).toMatchObject({ code: 'SYSTEM_ERROR', message: 'just a string' });
    expect(toZkError(null)).toMatchObject({ code: 'SYSTEM_ERROR', message: 'null' });
    expect(toZkError(undefined)).toMatchObject({ code: 'SYSTEM_ERROR', message: 'undefined' });
    expect(toZkError(42)).toMatchObject({ code: 'SYSTEM_ERROR', message: '42' });
    expect(toZkError({ message: 7 })).toMatchObject({ code: 'SYSTEM_ERROR', message: '[object Object]' });
  });
});

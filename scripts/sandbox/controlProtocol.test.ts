/** The drill control socket's request parsing: the launcher must survive any line. */
import { describe, expect, it } from 'vitest';
import { controlSocketPath, parseRequest } from './controlProtocol.js';

describe('parseRequest', () => {
  it('reads status and every drill with its member', () => {
    expect(parseRequest('{"op":"status"}')).toEqual({ op: 'status' });
    for (const op of ['kill', 'freeze', 'thaw', 'stop', 'start', 'restart']) {
      expect(parseRequest(JSON.stringify({ op, id: 2 }))).toEqual({ op, id: 2 });
    }
    expect(parseRequest('{"op":"restart","id":1,"timeoutMs":45000}')).toEqual({ op: 'restart', id: 1, timeoutMs: 45_000 });
  });

  it('names what is wrong instead of throwing', () => {
    expect(parseRequest('kill 2')).toEqual({ error: 'the request is not JSON' });
    expect(parseRequest('null')).toEqual({ error: 'the request is not an object' });
    expect(parseRequest('{"op":"explode","id":1}')).toMatchObject({ error: expect.stringContaining('unknown op "explode"') });
    expect(parseRequest('{"op":"kill"}')).toEqual({ error: 'id must be a member number (1, 2, ...)' });
    expect(parseRequest('{"op":"kill","id":0}')).toEqual({ error: 'id must be a member number (1, 2, ...)' });
    expect(parseRequest('{"op":"kill","id":"2"}')).toEqual({ error: 'id must be a member number (1, 2, ...)' });
    expect(parseRequest('{"op":"restart","id":1,"timeoutMs":1e9}')).toEqual({ error: 'timeoutMs must be an integer from 1000 to 600000' });
  });
});

describe('parseRequest: add (issue 24)', () => {
  it('reads add with its member, role and timeout, and refuses a role elsewhere', () => {
    expect(parseRequest('{"op":"add","id":4}')).toEqual({ op: 'add', id: 4 });
    expect(parseRequest('{"op":"add","id":5,"role":"observer","timeoutMs":30000}')).toEqual({ op: 'add', id: 5, role: 'observer', timeoutMs: 30_000 });
    expect(parseRequest('{"op":"add","id":5,"role":"leader"}')).toEqual({ error: 'role must be participant or observer' });
    expect(parseRequest('{"op":"kill","id":5,"role":"observer"}')).toEqual({ error: 'role applies to add only, not kill' });
    expect(parseRequest('{"op":"add"}')).toEqual({ error: 'id must be a member number (1, 2, ...)' });
  });
});

describe('controlSocketPath', () => {
  it('lives in the state dir', () => {
    expect(controlSocketPath('/tmp/s')).toBe('/tmp/s/control.sock');
  });
});

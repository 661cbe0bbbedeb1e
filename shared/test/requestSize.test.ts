import { describe, expect, it } from 'vitest';
import {
  checkRequestSize,
  DEFAULT_JUTE_MAX_BUFFER,
  maxDataBytesFor,
  requestOverheadBytes,
  requestPacketBytes,
  utf8Length,
  wirePath,
} from '../src/requestSize.js';

const LIMIT = DEFAULT_JUTE_MAX_BUFFER;

describe('request packet size, as the member counts it against jute.maxbuffer', () => {
  it('setData: 8 header + 4 + path + 4 + data + 4 version', () => {
    // "/a" is 2 bytes: 8 + (4 + 2) + 4 + 4 = 22 bytes around the data.
    expect(requestOverheadBytes({ op: 'setData', path: '/a', dataBytes: 0 })).toBe(22);
    expect(requestPacketBytes({ op: 'setData', path: '/a', dataBytes: 100 })).toBe(122);
  });

  it('create: 8 header + 4 + path + 4 + data + ACL vector + 4 flags', () => {
    // world:anyone: 4 count + (4 perms + 4 + 5 "world" + 4 + 6 "anyone") + 4 flags = 31 beside header, path and data.
    const acl = [{ scheme: 'world', id: 'anyone' }];
    expect(requestOverheadBytes({ op: 'create', path: '/a', dataBytes: 0, acl })).toBe(8 + 6 + 4 + 4 + 23 + 4);
    const two = [...acl, { scheme: 'ip', id: '10.9.9.9' }];
    expect(
      requestOverheadBytes({ op: 'create', path: '/a', dataBytes: 0, acl: two }) - requestOverheadBytes({ op: 'create', path: '/a', dataBytes: 0, acl }),
    ).toBe(4 + 4 + 2 + 4 + 8);
  });

  it('counts the path in UTF-8 bytes, not characters', () => {
    expect(utf8Length('/é')).toBe(3);
    expect(utf8Length('/日本')).toBe(7);
    expect(utf8Length('/😀')).toBe(5);
    expect(utf8Length('/\ud800')).toBe(4); // a lone surrogate, as Buffer.byteLength and TextEncoder count it (U+FFFD)
    for (const s of ['/plain', '/é/ü', '/日本/語', '/😀x', '/a\ud800b', '/\udc00']) expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
    expect(requestOverheadBytes({ op: 'setData', path: '/日本', dataBytes: 0 })).toBe(8 + 4 + 7 + 4 + 4);
  });

  it('counts the chroot the client prepends', () => {
    expect(wirePath('/a', '/app')).toBe('/app/a');
    expect(wirePath('/', '/app')).toBe('/app');
    expect(wirePath('/a', null)).toBe('/a');
    expect(requestOverheadBytes({ op: 'setData', path: '/a', chroot: '/app', dataBytes: 0 })).toBe(22 + 4);
  });

  it('at the exact boundary: the limit itself passes, one byte more is refused', () => {
    const at = { op: 'setData' as const, path: '/limits/x', dataBytes: 0 };
    const max = maxDataBytesFor(at, LIMIT);
    // The notes' rule of thumb: 1,048,555 minus the path's bytes for setData.
    expect(max).toBe(1_048_555 - '/limits/x'.length);
    expect(checkRequestSize({ ...at, dataBytes: max }, LIMIT)).toEqual({ ok: true, packetBytes: LIMIT });
    const over = checkRequestSize({ ...at, dataBytes: max + 1 }, LIMIT);
    expect(over).toMatchObject({ ok: false, packetBytes: LIMIT + 1, overBy: 1, maxDataBytes: max });
  });

  it('1 MiB of data never fits under the default limit, whatever the path', () => {
    expect(checkRequestSize({ op: 'setData', path: '/', dataBytes: 1_048_576 }, LIMIT)).toMatchObject({ ok: false, overBy: 1_048_576 + 21 - LIMIT });
    expect(checkRequestSize({ op: 'create', path: '/a', dataBytes: 1_048_576, acl: [{ scheme: 'world', id: 'anyone' }] }, LIMIT).ok).toBe(false);
  });

  it('the refusal says the limit, how far over, and how to raise it on both sides', () => {
    const check = checkRequestSize({ op: 'create', path: '/big', dataBytes: 1_048_576, acl: [{ scheme: 'world', id: 'anyone' }] }, LIMIT);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.reason).toContain('1,048,575');
    expect(check.reason).toContain(`${check.overBy.toLocaleString('en-US')} over`);
    expect(check.reason).toMatch(/jute\.maxbuffer on every ZooKeeper member/);
    expect(check.reason).toMatch(/Keeper's "juteMaxBuffer" setting/);
    expect(check.reason).toMatch(/Nothing was sent/);
  });

  it('a larger configured limit moves the boundary by exactly as much', () => {
    const request = { op: 'setData' as const, path: '/a', dataBytes: 0 };
    expect(maxDataBytesFor(request, 4 * 1024 * 1024) - maxDataBytesFor(request, LIMIT)).toBe(4 * 1024 * 1024 - LIMIT);
    expect(maxDataBytesFor(request, 10)).toBe(0);
  });
});

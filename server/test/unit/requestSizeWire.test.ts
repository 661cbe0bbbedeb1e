/**
 * shared/requestSize.ts against the bytes node-zookeeper-client really puts on the wire: the
 * packet its jute serialiser builds, minus the 4-byte length prefix the member does not count.
 */
import { createRequire } from 'node:module';
import zookeeper from 'node-zookeeper-client';
import { describe, expect, it } from 'vitest';
import { requestPacketBytes, type SizedRequest } from '@keeper/shared';

interface JuteRecord {
  setChrootPath(path: string): void;
  [field: string]: unknown;
}
interface Jute {
  OP_CODES: Record<string, number>;
  protocol: Record<string, new () => JuteRecord>;
  Request: new (header: JuteRecord, payload: JuteRecord) => { toBuffer(): Buffer };
}
const jute = createRequire(import.meta.url)('node-zookeeper-client/lib/jute') as Jute;

function wireBytes(request: SizedRequest): number {
  const header = new (jute.protocol.RequestHeader as new () => JuteRecord)();
  header.type = jute.OP_CODES[request.op === 'create' ? 'CREATE' : 'SET_DATA'];
  const payload = new (jute.protocol[request.op === 'create' ? 'CreateRequest' : 'SetDataRequest'] as new () => JuteRecord)();
  payload.path = request.path;
  payload.data = Buffer.alloc(request.dataBytes);
  if (request.op === 'create') {
    payload.acl = request.acl.map((a) => (new zookeeper.ACL(31, new zookeeper.Id(a.scheme, a.id)) as unknown as { toRecord(): unknown }).toRecord());
    payload.flags = 0;
  } else payload.version = 7;
  if (request.chroot) payload.setChrootPath(request.chroot);
  return new jute.Request(header, payload).toBuffer().length - 4;
}

describe("packet size: the arithmetic equals the client library's serialisation", () => {
  const cases: SizedRequest[] = [
    { op: 'setData', path: '/a', dataBytes: 0 },
    { op: 'setData', path: '/limits/日本語/ü', dataBytes: 1234 },
    { op: 'setData', path: '/x', chroot: '/app/root', dataBytes: 99 },
    { op: 'setData', path: '/', chroot: '/app', dataBytes: 5 },
    { op: 'create', path: '/a', dataBytes: 0, acl: [{ scheme: 'world', id: 'anyone' }] },
    {
      op: 'create',
      path: '/deep/er/😀',
      dataBytes: 4096,
      acl: [
        { scheme: 'ip', id: '10.9.9.9' },
        { scheme: 'digest', id: 'ops:ZG9udCB0cnVzdCB0aGlzIGhhc2gxMjM0NTY=' },
      ],
    },
    { op: 'create', path: '/c', chroot: '/app', dataBytes: 1, acl: [{ scheme: 'auth', id: '' }] },
  ];
  for (const request of cases) {
    it(`${request.op} ${request.chroot ?? ''}${request.path} with ${request.dataBytes} bytes`, () => {
      expect(requestPacketBytes(request)).toBe(wireBytes(request));
    });
  }
});

/**
 * Outcome verification after a lost reply, for every kind of mutation (create, setData, delete,
 * setACL), against an in-memory ensemble that can apply a request and then lose its reply, or
 * lose the request itself. Each case checks what is reported AND that nothing was applied twice.
 * (The integration tests show the same on a real ensemble with a hung member.)
 */
import zookeeper from 'node-zookeeper-client';
import { describe, expect, it } from 'vitest';
import { ZkError } from '../../src/zk/errors.js';
import type { ZkGateway } from '../../src/zk/gateway.js';
import { RESEND_MAX_PACKET_BYTES, ZkMutations, type AclEntry } from '../../src/zk/mutations.js';

interface Node {
  data: Buffer;
  version: number;
  aversion: number;
  acl: AclEntry[];
}

type Fault = 'none' | 'applyThenLose' | 'loseRequest';
const CONNECTION_LOSS = -4;
const codes = { NO_NODE: -101, BAD_VERSION: -103, NODE_EXISTS: -110 };

/** Just enough of a ZooKeeper and of the gateway's callOnce/getData for ZkMutations. */
class FakeEnsemble {
  readonly nodes = new Map<string, Node>();
  /** Faults for the next requests, in order; then every request goes through. */
  faults: Fault[] = [];
  sent = 0;
  /**
   * The member the session moved to after a lost reply has not applied that request's commit yet:
   * reads there see the nodes as they were before it, until a sync (then it has caught up).
   */
  lagsAfterLoss = false;
  private behind: Map<string, Node> | null = null;
  readonly log: string[] = [];
  private seq = 0;

  /** What a read on the session's member sees. */
  private seen(): Map<string, Node> {
    return this.behind ?? this.nodes;
  }

  stat(node: Node) {
    return {
      czxid: 0,
      mzxid: 0,
      pzxid: 0,
      ctime: 0,
      mtime: 0,
      version: node.version,
      cversion: 0,
      aversion: node.aversion,
      ephemeralOwner: 0,
      dataLength: node.data.length,
      numChildren: 0,
    };
  }

  private readonly client = {
    create: (path: string, data: Buffer, acls: zookeeper.ACL[], mode: number, cb: (e: unknown, p?: string) => void) => {
      const name = mode === zookeeper.CreateMode.PERSISTENT_SEQUENTIAL ? `${path}${String(this.seq++).padStart(10, '0')}` : path;
      if (this.nodes.has(name)) return cb({ code: codes.NODE_EXISTS });
      this.nodes.set(name, {
        data,
        version: 0,
        aversion: 0,
        acl: acls.map((a) => ({ scheme: a.id.scheme, id: a.id.id, permissions: (a as unknown as { permission: number }).permission })),
      });
      cb(null, name);
    },
    setData: (path: string, data: Buffer, version: number, cb: (e: unknown, s?: unknown) => void) => {
      const node = this.nodes.get(path);
      if (!node) return cb({ code: codes.NO_NODE });
      if (version !== -1 && node.version !== version) return cb({ code: codes.BAD_VERSION });
      node.data = data;
      node.version++;
      cb(null, this.stat(node));
    },
    remove: (path: string, version: number, cb: (e: unknown) => void) => {
      const node = this.nodes.get(path);
      if (!node) return cb({ code: codes.NO_NODE });
      if (version !== -1 && node.version !== version) return cb({ code: codes.BAD_VERSION });
      this.nodes.delete(path);
      cb(null);
    },
    getACL: (path: string, cb: (e: unknown, acls?: unknown[], s?: unknown) => void) => {
      const node = this.nodes.get(path);
      if (!node) return cb({ code: codes.NO_NODE });
      cb(
        null,
        node.acl.map((a) => ({ id: { scheme: a.scheme, id: a.id }, permission: a.permissions })),
        this.stat(node),
      );
    },
    setACL: (path: string, acls: zookeeper.ACL[], version: number, cb: (e: unknown, s?: unknown) => void) => {
      const node = this.nodes.get(path);
      if (!node) return cb({ code: codes.NO_NODE });
      if (version !== -1 && node.aversion !== version) return cb({ code: codes.BAD_VERSION });
      node.acl = acls.map((a) => ({ scheme: a.id.scheme, id: a.id.id, permissions: (a as unknown as { permission: number }).permission }));
      node.aversion++;
      cb(null, this.stat(node));
    },
  };

  readonly gateway = {
    // A read-write session: a read-only one is refused before anything is sent (ZkMutations.assertWritable).
    session: { state: 'connected', connection: null, member: '127.0.0.1:2181' },
    callOnce: <T>(op: string, _path: string, invoke: (client: unknown, done: (error: unknown, value?: T) => void) => void): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const fault = op === 'getACL' ? 'none' : (this.faults.shift() ?? 'none');
        if (op !== 'getACL') this.sent++;
        if (fault === 'loseRequest') return reject({ code: CONNECTION_LOSS });
        if (fault === 'applyThenLose' && this.lagsAfterLoss) this.behind = new Map([...this.nodes].map(([k, v]) => [k, { ...v }]));
        invoke(this.client, (error, value) => {
          if (fault === 'applyThenLose') return reject({ code: CONNECTION_LOSS });
          if (error) reject(error);
          else resolve(value as T);
        });
      }),
    getData: async (path: string) => {
      this.log.push(`getData ${path}`);
      const node = this.seen().get(path);
      if (!node) throw new ZkError('NO_NODE', `no ${path}`, path);
      return { data: node.data, stat: { version: node.version, aversion: node.aversion, dataLength: node.data.length } };
    },
    exists: async (path: string) => {
      this.log.push(`exists ${path}`);
      const node = this.seen().get(path);
      return node ? { version: node.version, aversion: node.aversion, dataLength: node.data.length } : null;
    },
    sync: async () => {
      this.log.push('sync');
      this.behind = null;
      return null;
    },
  } as unknown as ZkGateway;

  put(path: string, data = 'v0', version = 0): void {
    this.nodes.set(path, { data: Buffer.from(data), version, aversion: 0, acl: [{ scheme: 'world', id: 'anyone', permissions: 31 }] });
  }
}

const PERSISTENT = zookeeper.CreateMode.PERSISTENT;

describe('reading back on a member that has not caught up', () => {
  // The session moved to a member that had not applied the lost request's commit: without a sync
  // first, the read back said "not applied", the re-send met the write itself (NODE_EXISTS, BAD_VERSION,
  // NO_NODE), and the operator was told a write that was applied had failed.
  it('syncs before reading a create back: applied, and not sent twice', async () => {
    const zk = new FakeEnsemble();
    zk.lagsAfterLoss = true;
    zk.faults = ['applyThenLose'];
    const outcome = await new ZkMutations(zk.gateway).create('/a', Buffer.from('x'), PERSISTENT);
    expect(outcome).toMatchObject({ value: '/a', confirmedDirectly: false, note: 'reply lost; read back: created' });
    expect(zk.sent).toBe(1);
    expect(zk.log).toEqual(['sync', 'getData /a']);
  });

  it('syncs before reading a setData or a delete back', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a', 'v0', 3);
    zk.lagsAfterLoss = true;
    zk.faults = ['applyThenLose'];
    const mutations = new ZkMutations(zk.gateway);
    expect(await mutations.setData('/a', Buffer.from('v1'), 3)).toMatchObject({ confirmedDirectly: false, note: 'reply lost; read back: applied' });
    zk.faults = ['applyThenLose'];
    expect(await mutations.remove('/a', 4)).toMatchObject({ confirmedDirectly: false, note: 'reply lost; read back: deleted' });
    expect(zk.sent).toBe(2);
    expect(zk.log).toEqual(['sync', 'getData /a', 'sync', 'exists /a']);
  });
});

describe('create after a lost reply', () => {
  it('applied: reads it back and says so, without creating twice', async () => {
    const zk = new FakeEnsemble();
    zk.faults = ['applyThenLose'];
    const outcome = await new ZkMutations(zk.gateway).create('/a', Buffer.from('x'), PERSISTENT);
    expect(outcome).toMatchObject({ value: '/a', confirmedDirectly: false, note: 'reply lost; read back: created' });
    expect(zk.sent).toBe(1);
  });

  it('not applied: re-sends exactly once', async () => {
    const zk = new FakeEnsemble();
    zk.faults = ['loseRequest'];
    const outcome = await new ZkMutations(zk.gateway).create('/a', Buffer.from('x'), PERSISTENT);
    expect(outcome.note).toBe('reply lost; read back: not created; re-sent once');
    expect(zk.sent).toBe(2);
    expect(zk.nodes.get('/a')?.data.toString()).toBe('x');
  });

  it('someone else created it meanwhile with other data: NODE_EXISTS, nothing overwritten', async () => {
    const zk = new FakeEnsemble();
    zk.faults = ['loseRequest'];
    const mutations = new ZkMutations(zk.gateway);
    const pending = mutations.create('/a', Buffer.from('mine'), PERSISTENT);
    zk.put('/a', 'theirs');
    await expect(pending).rejects.toMatchObject({ code: 'NODE_EXISTS' });
    expect(zk.nodes.get('/a')?.data.toString()).toBe('theirs');
  });

  it('sequential: cannot be looked up, so OUTCOME_UNKNOWN and no second node', async () => {
    const zk = new FakeEnsemble();
    zk.faults = ['applyThenLose'];
    await expect(new ZkMutations(zk.gateway).create('/q-', Buffer.from(''), zookeeper.CreateMode.PERSISTENT_SEQUENTIAL)).rejects.toMatchObject({
      code: 'OUTCOME_UNKNOWN',
    });
    expect([...zk.nodes.keys()]).toEqual(['/q-0000000000']);
    expect(zk.sent).toBe(1);
  });

  it('a definite failure is reported as it is, with no read-back', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    await expect(new ZkMutations(zk.gateway).create('/a', Buffer.from('x'), PERSISTENT)).rejects.toMatchObject({ code: 'NODE_EXISTS' });
  });
});

describe('setData after a lost reply', () => {
  it('applied: version moved by one and the bytes match', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['applyThenLose'];
    const outcome = await new ZkMutations(zk.gateway).setData('/a', Buffer.from('v1'), 0);
    expect(outcome).toMatchObject({ confirmedDirectly: false, note: 'reply lost; read back: applied' });
    expect(zk.nodes.get('/a')?.version).toBe(1);
    expect(zk.sent).toBe(1);
  });

  it('not applied: re-sent once, version-checked', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['loseRequest'];
    const outcome = await new ZkMutations(zk.gateway).setData('/a', Buffer.from('v1'), 0);
    expect(outcome.note).toBe('reply lost; read back: not applied; re-sent once');
    expect(zk.nodes.get('/a')).toMatchObject({ version: 1, data: Buffer.from('v1') });
  });

  it('another writer got there in between: OUTCOME_UNKNOWN, their value kept', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['loseRequest'];
    const pending = new ZkMutations(zk.gateway).setData('/a', Buffer.from('mine'), 0);
    zk.put('/a', 'theirs', 1);
    await expect(pending).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(zk.nodes.get('/a')?.data.toString()).toBe('theirs');
  });
});

describe('delete after a lost reply', () => {
  it('applied: the node is gone, and that is success', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['applyThenLose'];
    const outcome = await new ZkMutations(zk.gateway).remove('/a', 0);
    expect(outcome).toMatchObject({ confirmedDirectly: false, note: 'reply lost; read back: deleted' });
    expect(zk.sent).toBe(1);
  });

  it('not applied: still there at the expected version, re-sent once', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['loseRequest'];
    const outcome = await new ZkMutations(zk.gateway).remove('/a', 0);
    expect(outcome.note).toBe('reply lost; read back: still there; re-sent once');
    expect(zk.nodes.has('/a')).toBe(false);
    expect(zk.sent).toBe(2);
  });

  it('changed meanwhile: BAD_VERSION and the node is kept', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['loseRequest'];
    const pending = new ZkMutations(zk.gateway).remove('/a', 0);
    zk.put('/a', 'changed', 1);
    await expect(pending).rejects.toMatchObject({ code: 'BAD_VERSION' });
    expect(zk.nodes.has('/a')).toBe(true);
  });
});

describe('setACL after a lost reply', () => {
  const READ_ONLY: AclEntry[] = [{ scheme: 'world', id: 'anyone', permissions: 1 }];

  it('applied: the ACL read back is the one sent', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['applyThenLose'];
    const outcome = await new ZkMutations(zk.gateway).setACL('/a', READ_ONLY, 0);
    expect(outcome).toMatchObject({ confirmedDirectly: false, note: 'reply lost; read back: applied' });
    expect(zk.nodes.get('/a')?.aversion).toBe(1);
    expect(zk.sent).toBe(1);
  });

  it('not applied: aversion unchanged, re-sent once', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['loseRequest'];
    const outcome = await new ZkMutations(zk.gateway).setACL('/a', READ_ONLY, 0);
    expect(outcome.note).toBe('reply lost; read back: not applied; re-sent once');
    expect(zk.nodes.get('/a')).toMatchObject({ aversion: 1, acl: READ_ONLY });
  });

  it('someone else changed the ACL meanwhile: OUTCOME_UNKNOWN, theirs kept', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['loseRequest'];
    const pending = new ZkMutations(zk.gateway).setACL('/a', READ_ONLY, 0);
    const node = zk.nodes.get('/a')!;
    node.acl = [{ scheme: 'ip', id: '10.0.0.1', permissions: 31 }];
    node.aversion = 1;
    await expect(pending).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(zk.nodes.get('/a')?.acl).toEqual([{ scheme: 'ip', id: '10.0.0.1', permissions: 31 }]);
  });
});

describe('the size limit: refused before sending, never re-sent after a drop', () => {
  const LIMIT = 1_048_575;
  // setData "/a": 8 header + (4 + 2) path + 4 data length + 4 version = 22 bytes around the data.
  const MAX_SET_DATA = LIMIT - 22;

  it('setData one byte over jute.maxbuffer is refused with nothing sent; at the limit it goes', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    const mutations = new ZkMutations(zk.gateway);
    await expect(mutations.setData('/a', Buffer.alloc(MAX_SET_DATA + 1), 0)).rejects.toMatchObject({
      code: 'DATA_TOO_LARGE',
      message: expect.stringMatching(/1 over the ensemble's limit of 1,048,575/),
    });
    expect(zk.sent).toBe(0);
    await mutations.setData('/a', Buffer.alloc(MAX_SET_DATA), 0);
    expect(zk.sent).toBe(1);
  });

  it('create counts its ACL and the chroot, and follows the configured limit', async () => {
    const zk = new FakeEnsemble();
    // 8 + (4 + 2) + 4 + 4 ACL count + (4 + 4+5 + 4+6) world:anyone + 4 flags = 49; chroot "/app" adds 4.
    const mutations = new ZkMutations(zk.gateway, { juteMaxBuffer: 100_000, chroot: '/app' });
    await expect(mutations.create('/a', Buffer.alloc(100_000 - 53 + 1), PERSISTENT)).rejects.toMatchObject({
      code: 'DATA_TOO_LARGE',
      message: expect.stringMatching(/limit of 100,000/),
    });
    expect(zk.sent).toBe(0);
    await mutations.create('/a', Buffer.alloc(100_000 - 53), PERSISTENT);
    expect(zk.nodes.has('/a')).toBe(true);
  });

  it('a large setData whose connection dropped is read back, not re-sent', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['loseRequest'];
    await expect(new ZkMutations(zk.gateway).setData('/a', Buffer.alloc(RESEND_MAX_PACKET_BYTES), 0)).rejects.toMatchObject({
      code: 'CONNECTION_LOSS',
      message: expect.stringMatching(/not applied\. Not re-sent/),
    });
    expect(zk.sent).toBe(1);
    expect(zk.nodes.get('/a')?.version).toBe(0);
  });

  it('a large create whose connection dropped is read back, not re-sent', async () => {
    const zk = new FakeEnsemble();
    zk.faults = ['loseRequest'];
    await expect(new ZkMutations(zk.gateway).create('/a', Buffer.alloc(RESEND_MAX_PACKET_BYTES), PERSISTENT)).rejects.toMatchObject({
      code: 'CONNECTION_LOSS',
      message: expect.stringMatching(/Not re-sent/),
    });
    expect(zk.sent).toBe(1);
    expect(zk.nodes.has('/a')).toBe(false);
  });

  it('a large write that did apply is still recognised from the read-back', async () => {
    const zk = new FakeEnsemble();
    zk.put('/a');
    zk.faults = ['applyThenLose'];
    const outcome = await new ZkMutations(zk.gateway).setData('/a', Buffer.alloc(RESEND_MAX_PACKET_BYTES), 0);
    expect(outcome.note).toBe('reply lost; read back: applied');
    expect(zk.sent).toBe(1);
  });
});

describe('delete reads back with exists, which needs no permission', () => {
  it('a node the console may not read is verified deleted after a lost reply', async () => {
    const zk = new FakeEnsemble();
    zk.put('/locked');
    zk.gateway.getData = () => Promise.reject(new ZkError('NO_AUTH', 'NO_AUTH (-102) at /locked', '/locked'));
    zk.faults = ['applyThenLose'];
    const outcome = await new ZkMutations(zk.gateway).remove('/locked', 0);
    expect(outcome.note).toBe('reply lost; read back: deleted');
  });
});

"""
kazoo (python3-kazoo) as the tests' independent ZooKeeper client: it shares no code with Keeper,
so what it sees could not share Keeper's bugs. Driven by scripts/lib/kazoo/*.ts; arguments come as
JSON through argv (the operations through stdin: a value may pass argv's 128 KiB limit), so no
value is ever spliced into Python source. (Not named kazoo.py: the
script's own directory comes first on sys.path, so that name would shadow the kazoo package.)

  driver.py ops HOSTS          run the operations read from stdin, print one JSON result per operation
  driver.py hold PLANS BUSY    open the sessions, print "ready <ids>", hold them until stdin closes
  driver.py write CONFIG       write {"counter": N} every interval, print "ack <N> <epoch ms>" per ack
  driver.py herd CONFIG        seed 000's loop: N sessions each calling get_children(path) without pause,
                               print "ready <ids>", loop until stdin closes, then "done <requests>"
"""
import base64
import json
import sys
import threading
import time
from collections import namedtuple

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
from kazoo.protocol.serialization import int_struct, write_string
from kazoo.retry import KazooRetry
from kazoo.security import make_acl, make_digest_acl


def perms(letters):
    return dict(read='r' in letters, write='w' in letters, create='c' in letters, delete='d' in letters, admin='a' in letters)


def acl_of(op):
    if not op.get('digest') and not op.get('world'):
        return None
    acl = [make_digest_acl(d['user'], d['password'], **perms(d['perms'])) for d in op.get('digest', [])]
    if op.get('world'):
        acl.append(make_acl('world', 'anyone', **perms(op['world'])))
    return acl


def node(zk, path, subtree):
    if subtree:
        # The member this session reads from applies every write acknowledged before (another
        # client's deletes included) before it answers: the count is of the subtree as it is now.
        zk.sync(path)
    try:
        data, stat = zk.get(path)
    except NoNodeError:
        return None
    out = {'data': (data or b'').decode('utf-8', 'replace'), 'version': stat.version, 'aversion': stat.aversion, 'numChildren': stat.numChildren}
    if subtree:
        out['subtree'] = count_subtree(zk, path)
    return out


class GetAllChildrenNumber(namedtuple('GetAllChildrenNumber', 'path')):
    """ZooKeeper's own count of the nodes under a path (getAllChildrenNumber, opcode 104, since
    3.6; kazoo 2.8 has no call for it): one request, where listing 18,000 nodes one
    get_children at a time took 10 to 40 s on a loaded 2-core machine, and level by level with
    256 outstanding still 15 to 30 s."""
    type = 104

    def serialize(self):
        return write_string(self.path)

    @classmethod
    def deserialize(cls, bytes, offset):
        return int_struct.unpack_from(bytes, offset)[0]


def count_subtree(zk, root):
    # The node itself counts too.
    counted = zk.handler.async_result()
    zk._call(GetAllChildrenNumber(root), counted)
    return 1 + counted.get()


def snapshot(zk, path, acc):
    try:
        data, stat = zk.get(path)
        acl, _ = zk.get_acls(path)
        children = zk.get_children(path)
    except NoNodeError:
        return acc
    acc[path] = {'data': base64.b64encode(data or b'').decode(), 'version': stat.version, 'aversion': stat.aversion,
                 'acl': sorted('%s:%s:%d' % (a.id.scheme, a.id.id, a.perms) for a in acl)}
    for c in children:
        snapshot(zk, path.rstrip('/') + '/' + c, acc)
    return acc


def grow(zk, root, shards, per_shard):
    # root/shard-NN/item-NNNN, created asynchronously: thousands of nodes in a second or two.
    zk.ensure_path(root)
    for i in range(shards):
        shard = '%s/shard-%02d' % (root, i)
        zk.create(shard, b'{"owner":"ingest"}')
        for r in [zk.create_async('%s/item-%04d' % (shard, j), b'x') for j in range(per_shard)]:
            r.get()


def run_op(zk, o):
    op, path = o['op'], o['path']
    if op == 'ensure':
        zk.ensure_path(path)
    elif op == 'create':
        data = base64.b64decode(o.get('data', ''))
        return zk.create(path, data, acl=acl_of(o), sequence=o.get('sequence', False), makepath=o.get('makepath', True))
    elif op == 'set':
        zk.set(path, base64.b64decode(o['data']))
    elif op == 'get':
        return node(zk, path, o.get('subtree', False))
    elif op == 'snapshot':
        return snapshot(zk, path, {})
    elif op == 'delete':
        zk.delete(path, recursive=o.get('recursive', False))
    elif op == 'purge':
        if zk.exists(path):
            zk.delete(path, recursive=True)
    elif op == 'grow':
        grow(zk, path, o['shards'], o['perShard'])
    else:
        raise ValueError('unknown op %r' % op)
    return None


def ops(hosts):
    ops = json.load(sys.stdin)
    # Digest credentials named in the ops are the client's own too, so it can work under the nodes it fences.
    auth = [('digest', '%s:%s' % (d['user'], d['password'])) for o in ops for d in o.get('digest', [])]
    zk = KazooClient(hosts=hosts, timeout=10, auth_data=auth)
    zk.start(timeout=20)
    try:
        out = [run_op(zk, o) for o in ops]
    finally:
        zk.stop()
        zk.close()
    print(json.dumps(out))


def hold(plans_json, busy):
    clients = []
    for plan in json.loads(plans_json):
        zk = KazooClient(hosts=plan['hosts'], timeout=plan['timeout'])
        zk.start(timeout=20)
        clients.append(zk)
        for path in plan.get('ephemerals', []):
            zk.create(path, plan.get('ephemeralData', '').encode(), ephemeral=True, makepath=True)
        for path in plan.get('watch', []):
            # exists() with a watch, as lock waiters and config readers do.
            zk.exists(path, watch=lambda event: None)
    print('ready ' + json.dumps(['0x%x' % zk.client_id[0] for zk in clients]), flush=True)
    # Held until stdin closes: release() closes it, and so does the test process dying, so no
    # session outlives its test run by more than its timeout.
    released = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), released.set()), daemon=True).start()
    while not released.wait(2):
        if busy:
            # A read now and then so the sessions look busy, like real workers.
            for zk in clients:
                try:
                    zk.exists('/')
                except Exception:
                    pass
    for zk in clients:
        zk.stop()
        zk.close()


def write(config_json):
    # Failures are retried at the next tick and never printed as acks.
    cfg = json.loads(config_json)
    zk = KazooClient(hosts=cfg['hosts'], timeout=cfg['sessionTimeoutS'], connection_retry=KazooRetry(max_tries=-1, max_delay=0.5))
    zk.start(timeout=30)
    zk.ensure_path(cfg['path'])
    print('ready', flush=True)
    value = 0
    while True:
        value += 1
        try:
            zk.set(cfg['path'], json.dumps({'counter': value}).encode())
            print('ack %d %d' % (value, int(time.time() * 1000)), flush=True)
        except Exception as e:
            print('fail %d %s' % (value, type(e).__name__), flush=True)
        time.sleep(cfg['intervalS'])


def herd(config_json):
    # One thread per worker, each with its own session, as a fleet of workers has; no back-off,
    # no deadline: the loop the seed's workers ran, which is what the console must name.
    # Options: pauseS, a pause between calls (workers a loaded ensemble has slowed, or that do a
    # little work between polls); watchPath, a data watch each worker keeps on a node (a queue
    # head), re-armed when it fires. A "pause" line on stdin stops the calls but keeps the
    # sessions (a herd that eases off), "resume" starts them again; EOF ends it all.
    cfg = json.loads(config_json)
    pause_s = cfg.get('pauseS', 0)
    watch_path = cfg.get('watchPath')
    clients = []
    for _ in range(cfg['workers']):
        zk = KazooClient(hosts=cfg['hosts'], timeout=cfg['sessionTimeoutS'])
        zk.start(timeout=30)
        clients.append(zk)
    stop = threading.Event()
    running = threading.Event()
    running.set()
    counts = [0] * len(clients)

    def keep_watch(zk):
        def rearm(_event):
            if not stop.is_set():
                try:
                    zk.exists(watch_path, watch=rearm)
                except Exception:
                    pass
        zk.exists(watch_path, watch=rearm)

    if watch_path:
        clients[0].ensure_path(watch_path)
        for zk in clients:
            keep_watch(zk)

    def loop(i, zk):
        while not stop.is_set():
            if not running.wait(0.2):
                continue
            try:
                zk.get_children(cfg['path'])
                counts[i] += 1
            except Exception:
                time.sleep(0.1)
            if pause_s:
                stop.wait(pause_s)

    threads = [threading.Thread(target=loop, args=(i, zk), daemon=True) for i, zk in enumerate(clients)]
    for t in threads:
        t.start()
    print('ready ' + json.dumps(['0x%x' % zk.client_id[0] for zk in clients]), flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command == 'pause':
            running.clear()
            print('paused', flush=True)
        elif command == 'resume':
            running.set()
            print('resumed', flush=True)
    stop.set()
    for t in threads:
        t.join(5)
    for zk in clients:
        zk.stop()
        zk.close()
    print('done %d' % sum(counts), flush=True)


if __name__ == '__main__':
    command = sys.argv[1]
    if command == 'ops':
        ops(sys.argv[2])
    elif command == 'hold':
        hold(sys.argv[2], sys.argv[3] == 'busy')
    elif command == 'write':
        write(sys.argv[2])
    elif command == 'herd':
        herd(sys.argv[2])
    else:
        sys.exit('unknown command %r' % command)

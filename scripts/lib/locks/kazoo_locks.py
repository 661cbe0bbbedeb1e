"""
Real kazoo 2.8.0 lock users for Keeper's tests (issue 12), driven by scripts/lib/locks/*.ts.
Debian's python3-kazoo under /usr/bin/python3, the version of kazoo #732. The configuration
comes as JSON in argv; what happens goes out as JSON lines on stdout ({"event": ...}); stdin
takes commands, one a line, and its end closes every session, so no process outlives its test.

  kazoo_locks.py contender CONFIG   one session using one recipe: Lock, ReadLock, WriteLock or
                                    Semaphore; "release" releases it (the session stays);
                                    "hold-callbacks" makes an application DataWatch callback
                                    block kazoo's callback thread (every watch callback waits
                                    behind it, the lock's own included) until "release-callbacks"
  kazoo_locks.py leak732 CONFIG     kazoo #732 for real: a failed acquire(blocking=False) whose
                                    own cleanup meets a connection loss, through a TCP proxy
                                    that drops the connection when that delete goes out
  kazoo_locks.py watchers CONFIG    N sessions, each a kazoo DataWatch on one node (a herd)

Events: "session" {sessionId, pid}; "holding"/"waiting" {node, dir, watching}; "released";
"callbacksHeld"; "callbacksReleased" {watching}; "leaked" {...}; "ready" {sessionIds};
"error" {message}.
"""
import json
import os
import socket
import struct
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
from kazoo.protocol.states import KazooState

# ZooKeeper's request type for delete (OpCode.delete).
OP_DELETE = 2
STEP_DEADLINE_S = 30
# Set once the sessions are being closed: what fails after that is the closing, not news.
CLOSING = threading.Event()


def emit(event, **fields):
    print(json.dumps(dict(event=event, **fields)), flush=True)


def session_hex(zk):
    # As ZooKeeper prints it (Long.toHexString): no padding.
    return '0x%x' % zk.client_id[0]


def started_client(hosts, timeout_s):
    zk = KazooClient(hosts=hosts, timeout=timeout_s)
    zk.start(timeout=30)
    return zk


def watches_under(zk, directory, kind='data'):
    """Paths under `directory` this client has a watch on, by kazoo's own registry (filled when
    the server's reply arrives, so the member has the watch too)."""
    registry = zk._data_watchers if kind == 'data' else zk._child_watchers
    prefix = directory.rstrip('/') + '/'
    return sorted(p for p, watchers in list(registry.items()) if watchers and (p.startswith(prefix) or (kind == 'child' and p == directory)))


def owned_child(zk, directory):
    """The child of `directory` whose ephemeral owner is this session, or None."""
    if not zk.exists(directory):
        return None
    for child in zk.get_children(directory):
        stat = zk.exists(directory + '/' + child)
        if stat and stat.ephemeralOwner == zk.client_id[0]:
            return child
    return None


def until(check, what):
    deadline = time.monotonic() + STEP_DEADLINE_S
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise RuntimeError('%s: not within %d s' % (what, STEP_DEADLINE_S))


def commands(handlers):
    """Runs stdin's commands until "stop" or the end of input."""
    for line in sys.stdin:
        line = line.strip()
        if line == 'stop':
            return
        if line in handlers:
            try:
                handlers[line]()
            except Exception as e:
                emit('error', message='%s: %r' % (line, e))


def close(clients):
    CLOSING.set()
    for zk in clients:
        try:
            zk.stop()
            zk.close()
        except Exception:
            pass


class Contender(object):
    """One kazoo recipe user. Where it stands is reported once it is real: holding, or its node
    created and its watch registered (a waiter between the two would not be waiting yet)."""

    def __init__(self, zk, cfg):
        self.zk = zk
        self.recipe = cfg['recipe']
        self.path = cfg['path']
        identifier = cfg.get('identifier', '')
        if self.recipe == 'Semaphore':
            self.lock = zk.Semaphore(self.path, identifier, max_leases=cfg['maxLeases'])
            self.acquire_args = {}
        else:
            self.lock = getattr(zk, self.recipe)(self.path, identifier)
            self.acquire_args = {'ephemeral': cfg.get('ephemeral', True)}
        self.holding = threading.Event()
        self.reported = None
        self.report_lock = threading.Lock()

    def run(self):
        try:
            if self.lock.acquire(**self.acquire_args):
                self.holding.set()
                self.report()
        except Exception as e:
            if not CLOSING.is_set():
                emit('error', message='acquire: %r' % (e,))

    def where(self, holding):
        """(directory, node name, paths watched) as things stand, or None while not placed yet."""
        if self.recipe == 'Semaphore':
            if holding:
                return self.path, os.path.basename(self.lock.create_path), []
            # A contender past the lease count holds the semaphore's own lock and waits on a
            # child watch of the lease directory (data watches only would miss it). Every
            # contender sets that watch while it counts the leases, so it waits only when the
            # leases are all taken and its own is not among them (one read: no race with its create).
            try:
                leases = self.zk.get_children(self.path)
            except NoNodeError:
                return None
            if os.path.basename(self.lock.create_path) in leases or len(leases) < self.lock.max_leases:
                return None
            lock_dir = self.lock.lock_path
            node = owned_child(self.zk, lock_dir)
            watching = watches_under(self.zk, self.path, 'child') + watches_under(self.zk, lock_dir)
            return (lock_dir, node, watching) if node and watching else None
        node = self.lock.node
        if node is None:
            return None
        if holding:
            return self.path, node, []
        watching = watches_under(self.zk, self.path)
        return (self.path, node, watching) if watching else None

    def report(self):
        with self.report_lock:
            holding = self.holding.is_set()
            placed = self.where(holding)
            state = 'holding' if holding else 'waiting'
            if placed is None or state == self.reported:
                return placed is not None
            self.reported = state
            directory, node, watching = placed
            emit(state, dir=directory, node=node, path=directory + '/' + node, watching=watching)
            return True

    def release(self):
        self.lock.release()
        self.holding.clear()
        emit('released')

    def hold_callbacks(self):
        """A slow application callback: the application's own DataWatch on a node of its own fires
        and its callback blocks. kazoo runs every watch callback on one thread, in order, so the
        lock's watch callback (the one that wakes acquire() to watch its new predecessor) waits
        behind it: the client stays connected and pinging, but sets no new watch meanwhile."""
        gate = threading.Event()
        running = threading.Event()
        self.callback_gate = gate
        signal = '/keeper-test-signals/%s' % session_hex(self.zk)
        self.zk.ensure_path(signal)

        def slow(data, stat, event):
            if event is not None:
                running.set()
                gate.wait()

        self.zk.DataWatch(signal, slow)
        self.zk.set(signal, b'hold')
        if not running.wait(STEP_DEADLINE_S):
            raise RuntimeError('the application callback did not start')
        emit('callbacksHeld')

    def release_callbacks(self):
        self.callback_gate.set()
        emit('callbacksReleased')


def contender(cfg):
    zk = started_client(cfg['hosts'], cfg['timeoutS'])
    emit('session', sessionId=session_hex(zk), pid=os.getpid())
    c = Contender(zk, cfg)
    threading.Thread(target=c.run, daemon=True).start()
    try:
        until(c.report, 'contender placed in %s' % cfg['path'])
        commands({'release': c.release, 'hold-callbacks': c.hold_callbacks, 'release-callbacks': c.release_callbacks})
    except Exception as e:
        emit('error', message=repr(e))
    finally:
        close([zk])


class CuttingProxy(object):
    """A TCP relay between kazoo and one member that, once armed, drops both connections when
    the next delete request arrives, before the member sees it: the network failing at that
    instant. kazoo fails the pending delete with ConnectionLoss, reconnects through the relay
    and keeps its session. Frames are length-prefixed; the first on a connection is the
    ConnectRequest, the others start with xid and type."""

    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.listener = socket.create_server(('127.0.0.1', 0))
        self.port = self.listener.getsockname()[1]
        self.armed = threading.Event()
        self.cuts = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            client, _ = self.listener.accept()
            member = socket.create_connection(self.target)
            threading.Thread(target=self._requests, args=(client, member), daemon=True).start()
            threading.Thread(target=self._replies, args=(member, client), daemon=True).start()

    @staticmethod
    def _read(sock, n):
        data = b''
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise EOFError()
            data += chunk
        return data

    @staticmethod
    def _drop(*socks):
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def _requests(self, client, member):
        first = True
        try:
            while True:
                header = self._read(client, 4)
                body = self._read(client, struct.unpack('>i', header)[0])
                if not first and self.armed.is_set() and len(body) >= 8:
                    xid, op = struct.unpack('>ii', body[:8])
                    if op == OP_DELETE:
                        self.armed.clear()
                        length = struct.unpack('>i', body[8:12])[0]
                        self.cuts.append({'xid': xid, 'op': 'delete', 'path': body[12:12 + length].decode()})
                        self._drop(client, member)
                        return
                first = False
                member.sendall(header + body)
        except (EOFError, OSError):
            self._drop(client, member)

    def _replies(self, member, client):
        try:
            while True:
                chunk = member.recv(65536)
                if not chunk:
                    break
                client.sendall(chunk)
        except OSError:
            pass
        self._drop(client, member)


def leak732(cfg):
    """kazoo #732: Lock.acquire(blocking=False) on a held lock creates its contender node, finds
    a predecessor and returns False through _best_effort_cleanup(), whose delete meets the
    connection loss and is swallowed (lock.py: `except KazooException: pass`). The node stays,
    owned by a session that lives on, with no watch in the lock directory."""
    host, port = cfg['member'].rsplit(':', 1)
    proxy = CuttingProxy(host, int(port))
    zk = started_client('127.0.0.1:%d' % proxy.port, cfg['timeoutS'])
    states = []
    zk.add_listener(lambda state: states.append(str(state)))
    session = session_hex(zk)
    emit('session', sessionId=session, pid=os.getpid())
    try:
        lock = zk.Lock(cfg['path'], cfg.get('identifier', ''))
        proxy.armed.set()
        acquired = lock.acquire(blocking=False)
        if acquired or not proxy.cuts:
            raise RuntimeError('no leak: acquire returned %r, connection cut %r' % (acquired, proxy.cuts))
        # kazoo fails the pending delete before it tells its listeners: wait for the whole
        # SUSPENDED -> CONNECTED round, the same session back.
        until(lambda: 'SUSPENDED' in states and states[-1] == 'CONNECTED' and zk.state == KazooState.CONNECTED, 'reconnected after the cut')
        node = lock.node
        stat = zk.exists(cfg['path'] + '/' + node)
        if stat is None or stat.ephemeralOwner != zk.client_id[0] or session_hex(zk) != session:
            raise RuntimeError('no leak: node %r stat %r session %s' % (node, stat, session_hex(zk)))
        emit('leaked', dir=cfg['path'], node=node, path=cfg['path'] + '/' + node, acquireReturned=acquired,
             cut=proxy.cuts[0], states=states, watching=watches_under(zk, cfg['path']) + watches_under(zk, cfg['path'], 'child'))
        commands({})
    except Exception as e:
        emit('error', message=repr(e))
    finally:
        close([zk])


def watchers(cfg):
    """Many sessions each keeping a kazoo DataWatch (re-armed after every change, as the
    recipe does) on one node: each change to it wakes all of them."""
    clients = [started_client(cfg['hosts'], cfg['timeoutS']) for _ in range(cfg['count'])]
    try:
        clients[0].ensure_path(cfg['path'])
        for zk in clients:
            zk.DataWatch(cfg['path'], lambda data, stat: None)
        for zk in clients:
            until(lambda: cfg['path'] in zk._data_watchers and zk._data_watchers[cfg['path']], 'watch set')
        emit('ready', sessionIds=[session_hex(zk) for zk in clients], pid=os.getpid())
        commands({})
    except Exception as e:
        emit('error', message=repr(e))
    finally:
        close(clients)


def inspect(cfg):
    zk = started_client(cfg['hosts'], 10)
    try:
        children = []
        for name in zk.get_children(cfg['path']) if zk.exists(cfg['path']) else []:
            try:
                data, stat = zk.get(cfg['path'] + '/' + name)
            except NoNodeError:
                continue
            children.append({'name': name, 'ephemeralOwner': '0x%x' % stat.ephemeralOwner, 'data': (data or b'').decode('utf-8', 'replace'),
                             'czxid': stat.czxid, 'version': stat.version})
        emit('children', children=children)
    finally:
        close([zk])


if __name__ == '__main__':
    command, config = sys.argv[1], json.loads(sys.argv[2])
    {'contender': contender, 'leak732': leak732, 'watchers': watchers, 'inspect': inspect}[command](config)

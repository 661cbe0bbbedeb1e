"""
A client under a rolling upgrade, as an application feels it (issue 13, items 9 and 10): one kazoo
session creating <root>/w-<n> one after another, each create retried within a deadline
(KazooRetry), and every ACKNOWLEDGED write printed with the time its ack arrived. The session's
states and the member it is on are printed as they change: LOST is kazoo's word for an expired
session. Driven by loadWriter.ts; the configuration comes as JSON through argv.

  loadwriter.py write CONFIG   print "ready <sessionId>", then until stdin closes:
                               "ack <n> <epoch ms> <epoch ms the write was first sent>", "fail <n> <error> <epoch ms>",
                               "state <SUSPENDED|LOST|CONNECTED> <epoch ms>", "peer <host:port> <epoch ms>";
                               then "done <json>" with the session ids it had
  loadwriter.py list CONFIG    print {"<root>": [n, ...]}: the writes that exist under each root, read
                               by a fresh session (the verifier: an acked n missing here was lost)

(Not in driver.py: its one job is one-shot operations and held sessions; this one is a workload.)
"""
import json
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.exceptions import NodeExistsError
from kazoo.retry import KazooRetry

out_lock = threading.Lock()


def say(line):
    with out_lock:
        print(line, flush=True)


def now_ms():
    return int(time.time() * 1000)


def peer_of(zk):
    # kazoo has no public "which member am I on": the socket knows. None while reconnecting.
    try:
        host, port = zk._connection._socket.getpeername()[:2]
        return '%s:%d' % (host, port)
    except Exception:
        return None


def write(config_json):
    cfg = json.loads(config_json)
    # Hosts in the given order (not shuffled), so each writer starts on the member it was meant for.
    zk = KazooClient(hosts=cfg['hosts'], timeout=cfg['sessionTimeoutS'], randomize_hosts=False,
                     connection_retry=KazooRetry(max_tries=-1, delay=0.05, max_delay=0.25))
    def on_state(state):
        say('state %s %d' % (state, now_ms()))
    zk.add_listener(on_state)
    zk.start(timeout=30)
    zk.ensure_path(cfg['root'])
    # An application's retry: short back-off (it is part of the gap a client feels), a deadline per write.
    retry = KazooRetry(max_tries=-1, delay=0.02, backoff=2, max_jitter=0.2, max_delay=0.25, deadline=cfg['retryDeadlineS'])
    session_ids = ['0x%x' % zk.client_id[0]]
    say('ready ' + session_ids[0])
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()

    peer = None
    n = 0
    while not stop.is_set():
        n += 1
        path = '%s/w-%010d' % (cfg['root'], n)

        def create_once():
            try:
                zk.create(path, b'%d' % n)
            except NodeExistsError:
                # An earlier attempt was applied before its connection dropped: the write is there.
                pass

        sent = now_ms()
        try:
            retry(create_once)
            # The send time too: ack - sent is the write's latency as the application felt it, retries included.
            say('ack %d %d %d' % (n, now_ms(), sent))
        except Exception as e:
            # Not acknowledged: whether it was applied is unknown, and the verifier does not ask.
            say('fail %d %s %d' % (n, type(e).__name__, now_ms()))
        current = peer_of(zk)
        if current is not None and current != peer:
            peer = current
            say('peer %s %d' % (peer, now_ms()))
        if zk.client_id and ('0x%x' % zk.client_id[0]) != session_ids[-1]:
            session_ids.append('0x%x' % zk.client_id[0])
        if cfg['intervalS'] > 0:
            stop.wait(cfg['intervalS'])
    # stop() itself moves the session to LOST: that is closing it, not an expiry.
    zk.remove_listener(on_state)
    say('done ' + json.dumps({'sessionIds': session_ids, 'attempted': n, 'state': str(zk.state)}))
    zk.stop()
    zk.close()


def list_writes(config_json):
    cfg = json.loads(config_json)
    zk = KazooClient(hosts=cfg['hosts'], timeout=10)
    zk.start(timeout=30)
    try:
        found = {}
        for root in cfg['roots']:
            found[root] = sorted(int(c[2:]) for c in zk.get_children(root) if c.startswith('w-'))
    finally:
        zk.stop()
        zk.close()
    print(json.dumps(found))


if __name__ == '__main__':
    command = sys.argv[1]
    if command == 'write':
        write(sys.argv[2])
    elif command == 'list':
        list_writes(sys.argv[2])
    else:
        sys.exit('unknown command %r' % command)

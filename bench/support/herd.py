"""
The herd of seed 000 for bench/herd.ts: kazoo workers, each on its own session pinned to one
member, looping get_children(PATH) as fast as their answers come back. Driven through stdin so the
bench can stop every worker between two requests and read the members' counters against exact
worker counts (a running herd would move them between two readings).

  herd.py CONFIG     CONFIG = {"members": ["host:port", ...], "workers": N, "path": "/x", "timeoutS": S}

  prints "ready <session ids>" once every session is open (the loops not yet started), then
  answers each stdin line:
    pause   -> every worker finishes its request in flight and waits; prints "paused <counts>",
               counts = {"requests": {member: answered requests}, "waitedS": seconds those took,
                         "errors": n, "lastError": "..."}
    resume  -> the loops go on; prints "resumed"
  and closes every session when stdin closes.
"""
import json
import sys
import threading
import time

from kazoo.client import KazooClient

cfg = json.loads(sys.argv[1])
path = cfg['path']
go = threading.Event()
stopping = threading.Event()
lock = threading.Lock()
requests = {m: 0 for m in cfg['members']}
errors = [0, '']
# Seconds spent waiting for answered getChildren, all workers together: their mean latency.
waited = [0.0]
parked = threading.Semaphore(0)


def work(zk, member):
    while True:
        if not go.is_set():
            parked.release()
            go.wait()
        if stopping.is_set():
            return
        began = time.monotonic()
        try:
            zk.get_children(path)
        except Exception as e:
            # A dropped or timed-out answer is part of a herd: counted apart (the request may not
            # have reached the member), with a short pause so a lost connection is not a busy loop.
            with lock:
                errors[0] += 1
                errors[1] = '%s: %s' % (type(e).__name__, e)
            stopping.wait(0.1)
            continue
        with lock:
            requests[member] += 1
            waited[0] += time.monotonic() - began

clients = []
for i in range(cfg['workers']):
    member = cfg['members'][i % len(cfg['members'])]
    zk = KazooClient(hosts=member, timeout=cfg['timeoutS'])
    zk.start(timeout=30)
    clients.append((zk, member))
threads = [threading.Thread(target=work, args=(zk, member), daemon=True) for zk, member in clients]
for t in threads:
    t.start()
for _ in threads:
    parked.acquire()
print('ready ' + json.dumps(['0x%x' % zk.client_id[0] for zk, _ in clients]), flush=True)

for line in sys.stdin:
    command = line.strip()
    if command == 'pause':
        go.clear()
        for _ in threads:
            parked.acquire()
        with lock:
            counts = {'requests': dict(requests), 'waitedS': waited[0], 'errors': errors[0], 'lastError': errors[1]}
        print('paused ' + json.dumps(counts), flush=True)
    elif command == 'resume':
        go.set()
        print('resumed', flush=True)

stopping.set()
go.set()
for zk, _ in clients:
    zk.stop()
    zk.close()

"""python-etcd3's Lock (Debian python3-etcd3 0.12) behind the lockchaos client protocol.

The lock is a key created under a lease of the run's ttl_ms (whole seconds: etcd's leases
are), and the library never refreshes that lease: a holder paused past it loses the key, and
the next waiter creates it. The library hands out no token ("TODO: save the created
revision"), so the adapter reads the one a team fencing with it would: the key's create
revision, read back with the lock's own value, larger for every later holder.

Debian's python3-etcd3 0.12.0 with its python3-tenacity 8.2 cannot wait: Lock.acquire's
wait callback has the signature tenacity dropped, and the first acquire that finds the lock
taken dies (TypeError: wait() missing ... 'delay_since_first_attempt'), which client-check
shows at once. So the adapter asks the library for one attempt at a time (acquire with
timeout 0 stops before any wait) and waits between them as the library means to: on a
watch of the lock's key, up to the time left.
"""
import os
import sys
import time

import etcd3
from etcd3.exceptions import Etcd3Exception, WatchTimedOut
from grpc import RpcError

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from protocol import fail, ok, serve, unknown  # noqa: E402

# A request with no answer by then raises, and its operation ends unknown (redis-py's
# adapter waits as long on a socket).
REQUEST_TIMEOUT_S = 1


class Etcd3Lock:
    def init(self, req):
        # python-etcd3 talks to one member; clients are spread over them.
        node = req["nodes"][int(req["client"].lstrip("c") or 0) % len(req["nodes"])]
        self.etcd = etcd3.client(host=node["host"], port=node["port"], timeout=REQUEST_TIMEOUT_S)
        self.held = {}
        return f"python-etcd3 {etcd3.__version__} Lock"

    def acquire(self, req):
        # etcd's leases are whole seconds; 1 s is the shortest the servers grant (etcd-node.ts).
        lock = self.etcd.lock(req["key"], ttl=max(1, round(req["ttl_ms"] / 1000)))
        deadline = time.monotonic() + req["timeout_ms"] / 1000
        try:
            while not lock.acquire(timeout=0):
                left = deadline - time.monotonic()
                if left <= 0:
                    return fail("lock busy")  # every attempt's create found the key taken
                try:
                    self.etcd.watch_once(lock.key, timeout=left)
                except WatchTimedOut:
                    pass
            value, meta = self.etcd.get(lock.key)
        except (Etcd3Exception, RpcError) as e:  # the create may have been applied
            return unknown(repr(e))
        if value != lock.uuid:  # held, and lost before the token was read: the lease expired
            return unknown("the lock's key was gone before its create revision was read")
        lease = str(req["id"])
        self.held[lease] = lock
        return ok(token=meta.create_revision, lease=lease)

    def release(self, req):
        lock = self.held.pop(req["lease"], None)
        if lock is None:
            return fail("no lock of this lease")
        try:
            # A transaction that deletes the key only while it holds this lock's value.
            if lock.release():
                return ok()
            return fail("the lock's key was gone or another's: its lease had expired")
        except (Etcd3Exception, RpcError) as e:
            return unknown(repr(e))


serve(Etcd3Lock())

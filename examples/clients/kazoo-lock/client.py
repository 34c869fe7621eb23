"""kazoo's Lock (Debian python3-kazoo 2.8) behind the lockchaos client protocol.

The session is the lease: its timeout is the run's ttl_ms, so a client paused longer than
that loses its session, and ZooKeeper deletes its ephemeral lock znode. The token is the
znode's sequence number: the parent's counter, larger for every contender that comes later.
"""
import os
import sys

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException, LockTimeout
from kazoo.version import __version__

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from protocol import fail, ok, serve, unknown  # noqa: E402


class KazooLock:
    def init(self, req):
        self.hosts = ",".join(f"{n['host']}:{n['port']}" for n in req["nodes"])
        self.client, self.held, self.in_doubt = None, {}, False
        return f"kazoo {__version__} Lock"

    def session(self):
        return self.client.client_id and self.client.client_id[0]

    def connect(self, ttl_ms):
        # Only the first acquire says the TTL. The servers allow 200 ms to 60 s (zookeeper-node.ts).
        timeout_s = min(max(ttl_ms, 200), 60_000) / 1000
        # Few command retries: a retry loop that outlasts the request would look like a hang.
        self.client = KazooClient(hosts=self.hosts, timeout=timeout_s,
                                  command_retry={"max_tries": 2, "delay": 0.1, "max_delay": 0.5})
        self.client.start(timeout=10)

    def drop_session(self):
        # Grants the harness abandoned (docs/client-protocol.md), or a contender znode an
        # unknown acquire may have left: a live session would keep them, and every other
        # client would wait behind them forever. Closed, as a crashed client's would be.
        self.client.stop()
        self.client.close()
        self.client, self.held, self.in_doubt = None, {}, False

    def acquire(self, req):
        if self.client is not None and (self.held or self.in_doubt):
            self.drop_session()
        if self.client is None:
            self.connect(req["ttl_ms"])
        lock = self.client.Lock("/lockchaos/" + req["key"], identifier=f"{req['id']}")
        try:
            if not lock.acquire(timeout=req["timeout_ms"] / 1000):
                return fail("lock busy")
        except LockTimeout as e:  # kazoo deleted our contender znode: we hold nothing
            return fail(e)
        except KazooException as e:  # a lost connection: our znode may stand
            self.in_doubt = True
            return unknown(repr(e))
        lease = str(req["id"])
        self.held[lease] = (lock, self.session())
        return ok(token=int(lock.node[-10:]), lease=lease)

    def release(self, req):
        if req["lease"] not in self.held:  # its session was closed (drop_session): not ours
            return fail("the session that held the lock was closed")
        lock, session = self.held.pop(req["lease"])
        # kazoo's release() answers True when the znode is already gone; a new session means the
        # old one expired, and its ephemeral znode went with it: the lock was no longer ours.
        if self.session() != session:
            return fail("the session that held the lock expired")
        try:
            lock.release()
            return ok()
        except KazooException as e:  # e.g. the server expired the session we still think live
            return unknown(repr(e))


serve(KazooLock())

"""The dispatch's FencedLock (its Part 3, in Rust), ported line for line, behind the protocol.

The Rust below is as issue 26 describes it (the dispatch's own text is not in this
repository): a per-instance AtomicU64 from 0, fetch_add(1) + 1, no server, and the lease
checked right after the time is taken.

    pub struct FencedLock { counter: AtomicU64, lease: Duration }
    pub fn new(lease: Duration) -> Self { FencedLock { counter: AtomicU64::new(0), lease } }
    pub fn acquire(&self) -> Result<LockGuard, LockError> {
        let token = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let acquired_at = Instant::now();
        let expires_at = acquired_at + self.lease;
        if Instant::now() > expires_at { return Err(LockError::LeaseExpired); }
        Ok(LockGuard { token, expires_at })
    }

What it does, on the record: every client has its own counter from 0, so every client
hands out token 1, then 2 ...; it asks no server, so every client holds at once; and the
lease check comes right after the time was taken, so it cannot fail.
"""
import itertools
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from protocol import fail, ok, serve  # noqa: E402


class FencedLock:
    def __init__(self, lease_s):
        self.counter = itertools.count(0)  # AtomicU64::new(0); next() is fetch_add(1)
        self.lease_s = lease_s

    def acquire(self):
        token = next(self.counter) + 1
        acquired_at = time.monotonic()
        expires_at = acquired_at + self.lease_s
        if time.monotonic() > expires_at:  # never true: taken a moment after acquired_at
            raise TimeoutError("lease expired")
        return token, expires_at


class SeedFencedLock:
    def init(self, req):
        self.lock = None  # one FencedLock a client, as the dispatch's example makes one a process
        return "seed FencedLock (ported from the dispatch's Rust)"

    def acquire(self, req):
        self.lock = self.lock or FencedLock(req["ttl_ms"] / 1000)
        try:
            token, _ = self.lock.acquire()
        except TimeoutError as e:
            return fail(e)
        return ok(token=token)

    def release(self, req):
        return ok()  # dropping a LockGuard releases nothing: there is nothing held anywhere


serve(SeedFencedLock())

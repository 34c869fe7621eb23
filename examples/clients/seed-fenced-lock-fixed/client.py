"""The dispatch's FencedLock, fixed: a real lock and a token from a linearizable source.

The same shape as ../seed-fenced-lock/client.py, but acquire asks one Redis: a Lua script
(atomic on the server) does SET key owner NX PX ttl and, only if that succeeded, INCR of a
counter key, and returns the counter as the token. Every grant gets a number larger than
every grant before it, so a store that refuses older tokens refuses a paused holder's write.
Release deletes the key only if it still holds our owner string.
"""
import os
import sys
import time
import uuid

import redis
from redis.exceptions import RedisError

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from protocol import fail, ok, serve, unknown  # noqa: E402

ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return false"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0"""
RETRY_S = 0.01


class FencedLock:
    def __init__(self, client, lease_s):
        self.acquire_script = client.register_script(ACQUIRE)
        self.release_script = client.register_script(RELEASE)
        self.lease_s = lease_s

    def acquire(self, key, owner):
        token = self.acquire_script(keys=[key, key + ":token"], args=[owner, int(self.lease_s * 1000)])
        if token is None:
            return None  # held by another
        acquired_at = time.monotonic()
        expires_at = acquired_at + self.lease_s
        return token, expires_at

    def release(self, key, owner):
        return self.release_script(keys=[key], args=[owner]) == 1


class SeedFencedLockFixed:
    def init(self, req):
        node = req["nodes"][0]
        self.client = redis.Redis(host=node["host"], port=node["port"], socket_timeout=1.0)
        return f"seed FencedLock, fixed (Redis SET NX + INCR, redis-py {redis.__version__})"

    def acquire(self, req):
        lock, owner = FencedLock(self.client, req["ttl_ms"] / 1000), uuid.uuid4().hex
        deadline = time.monotonic() + req["timeout_ms"] / 1000
        try:
            while (grant := lock.acquire(req["key"], owner)) is None:
                if time.monotonic() > deadline:
                    return fail("timeout: lock busy")  # every SET NX was refused
                time.sleep(RETRY_S)
        except RedisError as e:  # the script may have run: unknown
            return unknown(e)
        return ok(token=grant[0], lease=owner)

    def release(self, req):
        try:
            released = FencedLock(self.client, 0).release(req["key"], req["lease"])
        except RedisError as e:
            return unknown(e)
        return ok() if released else fail("the key no longer held our owner: expired or taken")


serve(SeedFencedLockFixed())

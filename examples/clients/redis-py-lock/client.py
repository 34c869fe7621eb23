"""redis-py's Lock behind the lockchaos client protocol (docs/client-protocol.md).

One JSON request a line on stdin, one answer a line on stdout. redis-py's Lock has no
fencing token, so an ok carries none; the lease is the request id, to find the lock again.
"""
import json
import sys

import redis
from redis.exceptions import LockError, LockNotOwnedError, RedisError


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


client, held = None, {}
for line in sys.stdin:
    req = json.loads(line)
    kind, rid = req["type"], req.get("id")
    if kind == "init":
        node = req["nodes"][0]
        client = redis.Redis(host=node["host"], port=node["port"], socket_timeout=1.0)
        send({"type": "init_ok", "protocol": 1, "name": f"redis-py {redis.__version__} Lock"})
    elif kind == "acquire":
        lock = client.lock(req["key"], timeout=req["ttl_ms"] / 1000,
                           blocking_timeout=req["timeout_ms"] / 1000, thread_local=False)
        try:
            if lock.acquire():
                held[str(rid)] = lock
                send({"type": "ok", "id": rid, "lease": str(rid)})
            else:
                send({"type": "fail", "id": rid, "error": "timeout: lock busy"})
        except RedisError as e:  # the SET may have been applied: unknown
            send({"type": "unknown", "id": rid, "error": str(e)})
    elif kind == "release":
        lock = held.pop(req.get("lease"), None)
        try:
            lock.release()
            send({"type": "ok", "id": rid})
        except (LockNotOwnedError, LockError) as e:  # no longer ours: not released
            send({"type": "fail", "id": rid, "error": str(e)})
        except RedisError as e:
            send({"type": "unknown", "id": rid, "error": str(e)})

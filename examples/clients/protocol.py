"""The lockchaos client protocol loop (docs/client-protocol.md), shared by the Python examples.

An adapter has init(req) -> its name for the record, and acquire(req) and release(req) ->
an answer: ok(...), fail(why) or unknown(why). One request at a time, one answer a line.
"""
import json
import sys


def ok(**fields):
    return {"type": "ok", **fields}


def fail(error):  # it certainly did not happen
    return {"type": "fail", "error": str(error)}


def unknown(error):  # it may have happened: recorded as info
    return {"type": "unknown", "error": str(error)}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(adapter):
    for line in sys.stdin:
        req = json.loads(line)
        if req["type"] == "init":
            send({"type": "init_ok", "protocol": 1, "name": adapter.init(req)})
        else:
            send({"id": req["id"], **getattr(adapter, req["type"])(req)})

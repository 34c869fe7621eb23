"""The lockchaos client protocol loop (docs/client-protocol.md), shared by the Python examples.

An adapter has init(req) -> its name for the record, and acquire(req) and release(req) ->
an answer: ok(...), fail(why) or unknown(why). One request at a time, one answer a line.
init may raise Decline(why) (this program cannot drive that backend). point(name) tells the
harness the program is at a named code point (protocol 2) and returns when it may go on.
extended(validity_ms) and extend_failed(why) report the library's own extension of the
lease, from any thread (the checkers date the lease from the last one).
"""
import json
import sys
import threading

# An extension thread writes beside the request loop: one line at a time.
_writing = threading.Lock()


def ok(**fields):
    return {"type": "ok", **fields}


def fail(error):  # it certainly did not happen
    return {"type": "fail", "error": str(error)}


def unknown(error):  # it may have happened: recorded as info
    return {"type": "unknown", "error": str(error)}


class Decline(Exception):  # init_fail: this program will not drive the run
    pass


def send(message):
    with _writing:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def extended(validity_ms=None):
    """The library extended the lease on its own: it lasts validity_ms from now (None: the run's TTL)."""
    send({"type": "extended"} if validity_ms is None else {"type": "extended", "validity_ms": validity_ms})


def extend_failed(error):
    """The library's own extension failed, in its words."""
    send({"type": "extend_failed", "error": str(error)})


def point(name):
    """At a named code point: the harness may stop this program here; go on once it says go."""
    send({"type": "at", "point": name})
    for line in sys.stdin:
        if json.loads(line).get("type") == "go":
            return


def serve(adapter):
    for line in sys.stdin:
        req = json.loads(line)
        if req["type"] == "init":
            try:
                send({"type": "init_ok", "protocol": 2, "name": adapter.init(req)})
            except Decline as why:
                send({"type": "init_fail", "error": str(why)})
                return
        else:
            send({"id": req["id"], **getattr(adapter, req["type"])(req)})

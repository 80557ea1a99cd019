"""Plays a trace through the limiter of a "Use these settings" snippet of Python's limits, and
prints the verdict of each request (allowed or rejected), for scripts/check-snippets.sh to compare
with the lab's limits-fixed, limits-moving or limits-sliding row.

The snippet file is imported as it is: its `limit` (what `parse` reads) and its `limiter` (the
strategy over its own MemoryStorage). Every clock reading of the memory storage and the
strategies is `time.time()`; the `time` those modules see is replaced by a clock that reads what
the trace sets, the lab's time 0 reading as the first multiple of the window at or after
1,700,000,000 s (the row's default `epoch`), converted to a float as CPython converts its
nanoseconds. Each request is `limiter.hit(limit, key, cost=cost)`: one count per key, as the
snippet's key argument makes it.
Usage: python limits_run.py LIMITS_EXAMPLE_PY TRACE_CSV
"""
import importlib.util
import sys
import types

import limits.storage.memory
import limits.strategies

now_ns = 0


def fake_time_time() -> float:
    """time.time() at the instant the trace set: CPython's float of whole nanoseconds."""
    return now_ns / 1e9 if now_ns % 10**9 else float(now_ns // 10**9)


fake_time = types.SimpleNamespace(time=fake_time_time)
limits.storage.memory.time = fake_time
limits.strategies.time = fake_time

spec = importlib.util.spec_from_file_location("limits_example", sys.argv[1])
snippet = importlib.util.module_from_spec(spec)
spec.loader.exec_module(snippet)
expiry = snippet.limit.get_expiry()
epoch = -(-1_700_000_000 // expiry) * expiry
for line in open(sys.argv[2], encoding="utf-8").read().split():
    at_ms, key, cost = line.split(",")
    now_ns = epoch * 10**9 + int(at_ms) * 10**6
    print("allowed" if snippet.limiter.hit(snippet.limit, key, cost=int(cost)) else "rejected")

# gilsan: expect = pass
# gilsan: drivers = sim
# gilsan: timeout = 120
# gilsan: description = the cost of one acquire/release pair of a traced threading.Lock, per way of reaching the hooks
"""Measures what tracing costs a `with lock:` block in a scenario child (docs/sanitizer.md, "Python locks").

Run it as `gilsan run tests/runner/data/python_locks/measure_lock_cost.py --driver sim` (sanitizer
and board on), and again with `--sanitize off` (board only). Each line is the best of 5 rounds of
200,000 pairs, in nanoseconds per pair, for:
  untraced      _thread.allocate_lock(), what threading.Lock is without gilsan
  wrapper       the traced classes over hooks that do nothing (the builtin `slice`, which takes 1 to 3
                arguments of any type): the Python side's own cost
  builtin       the child's threading.Lock: the builtin module _gilsan_lock_hooks (what gilsan uses)
  ctypes.PyDLL  the same classes over ctypes.PyDLL(None) (the executable's exports), GIL kept
  ctypes.CDLL   the same over ctypes.CDLL(None), which releases and retakes the GIL per call
"""
import _thread
import ctypes
import sys
import threading
import time
import types

PAIRS = 200_000
ROUNDS = 5


def per_pair_ns(lock):
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        for _ in range(PAIRS):
            with lock:
                pass
        best = min(best, (time.perf_counter_ns() - start) / PAIRS)
    return best


tracing = sys.modules.get("_gilsan_lock_tracing")
if tracing is None:
    print("no lock tracing in this child (neither a sanitizer nor a board)")
    sys.exit(0)
candidates = {
    "untraced": _thread.allocate_lock(),
    "wrapper": tracing.lock_classes(types.SimpleNamespace(**{name: slice for name in tracing.FUNCTION_NAMES}))[0](),
    "builtin": threading.Lock(),
    "ctypes.PyDLL": tracing.lock_classes(tracing.functions_from_library(ctypes.PyDLL(None)))[0](),
    "ctypes.CDLL": tracing.lock_classes(tracing.functions_from_library(ctypes.CDLL(None)))[0](),
}
for label, lock in candidates.items():
    print(f"{label:13} {per_pair_ns(lock):8.0f} ns per acquire/release pair")

# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: description = host_launch delivers positional and keyword arguments to every kind of callable
"""host_launch(stream, fn, *args, **kwargs) calls fn(*args, **kwargs), in stream order.

Plain functions, lambdas, bound methods, functools.partial and objects with __call__ all receive exactly
what was passed, including a keyword named user_data (only a native function consumes user_data=).
Once the stream is synchronized the module holds none of them any more.
"""
import functools

import gilsan

stream = gilsan.Stream()
calls = []


def record(*args, **kwargs):
    calls.append((args, kwargs))


class Recorder:
    def method(self, *args, **kwargs):
        calls.append(("method", args, kwargs))

    def __call__(self, *args, **kwargs):
        calls.append(("call", args, kwargs))


payload = {"nested": [1, 2, 3]}
stream.work(20)
gilsan.host_launch(stream, record, 1, "two", payload, key="value", user_data=7)
gilsan.host_launch(stream, lambda *a, **k: calls.append(("lambda", a, k)), None)
gilsan.host_launch(stream, Recorder().method, x=1)
gilsan.host_launch(stream, functools.partial(record, "partial-first"), "second", flag=True)
gilsan.host_launch(stream, Recorder())
stream.synchronize()

assert calls == [
    ((1, "two", payload), {"key": "value", "user_data": 7}),
    ("lambda", (None,), {}),
    ("method", (), {"x": 1}),
    (("partial-first", "second"), {"flag": True}),
    ("call", (), {}),
], calls
assert calls[0][0][2] is payload, "the argument object itself must be delivered, not a copy"

stats = gilsan._stats()
assert stats["payloads_live"] == 0, stats
print("all arguments delivered:", len(calls), "calls")

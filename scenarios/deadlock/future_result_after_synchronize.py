# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fixed twin: the host function no longer waits for the task that synchronizes its stream
"""`future_result_in_host_function.py` fixed: the host function hands its work to the executor instead of
waiting for the task's result, and the main thread collects both results after the stream completed.
"""
from concurrent.futures import ThreadPoolExecutor

import gilsan

stream = gilsan.Stream()
executor = ThreadPoolExecutor(max_workers=2)
submitted = {}


def task():
    stream.synchronize()
    return 42


def hands_over():
    submitted["follow-up"] = executor.submit(lambda: submitted["task"].result() + 1)


stream.work(200)
gilsan.host_launch(stream, hands_over)
submitted["task"] = executor.submit(task)
assert submitted["task"].result(timeout=10) == 42
assert submitted["follow-up"].result(timeout=10) == 43
print("the task and its follow-up finished")

# gilsan: expect = deadlock:callback-self-wait
# gilsan: drivers = sim, real
# gilsan: timeout = 5
# gilsan: description = a host function waits for a Future whose task synchronizes the host function's stream
"""A host function waits for the result of a task submitted to a ThreadPoolExecutor; the task
synchronizes the stream the host function runs on before it returns. The host function waits for a
notification of the Future, which only the executor's worker can give, and that worker waits for the
host function.
"""
from concurrent.futures import ThreadPoolExecutor

import gilsan

stream = gilsan.Stream()
executor = ThreadPoolExecutor(max_workers=1)
submitted = {}


def task():
    stream.synchronize()  # waits for the host function below
    return 42


def needs_the_result():
    submitted["task"].result()


stream.work(200)  # the host function starts after the task was submitted
gilsan.host_launch(stream, needs_the_result)
submitted["task"] = executor.submit(task)
submitted["task"].result()
print("not reached")

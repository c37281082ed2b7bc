# gilsan: expect = pass
# gilsan: timeout = 20
# gilsan: description = a worker holds a traced threading.Lock across a 1.2 s sleep while the main thread waits for it
"""Not a hang: the lock's holder is asleep with it, not blocked. The board records the main thread's wait
for the traced lock, but a wait behind a sleeping thread must not end the run after the quiet period
(docs/watchdog.md, "How it decides that the child hangs")."""
import threading
import time

lock = threading.Lock()
holding = threading.Event()


def worker():
    with lock:
        holding.set()
        time.sleep(1.2)


thread = threading.Thread(target=worker)
thread.start()
holding.wait()
with lock:
    print("the main thread got the lock after the worker's sleep")
thread.join()

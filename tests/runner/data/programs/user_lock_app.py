"""An ordinary Python program (not a scenario) with user-lock-inversion: the main thread takes a
threading.Lock and synchronizes a stream whose host function needs that lock. Under `gilsan run --
python3 user_lock_app.py`, the injected library traces the program's threading locks (made after its
first CUDA call), so the watchdog names the lock's holder from the board and the sanitizer reports the
lock-order cycle. The gilsan module provides the stream and the host function."""
import threading

import gilsan

stream = gilsan.Stream()  # the first driver call: the injected library sets up Python from here
lock = threading.Lock()


def needs_the_lock():
    with lock:
        print("not reached: the main thread holds the lock")


with lock:
    gilsan.host_launch(stream, needs_the_lock)
    stream.synchronize()

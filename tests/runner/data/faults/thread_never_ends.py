# gilsan: expect = timeout
# gilsan: timeout = 2
# gilsan: description = a non-daemon thread never ends, so the interpreter never finishes: the runner's timeout ends it
import threading
import time


def forever():
    while True:
        time.sleep(0.05)


threading.Thread(target=forever).start()
print("main thread done")

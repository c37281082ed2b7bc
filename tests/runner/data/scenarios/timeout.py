# gilsan: expect = timeout
# gilsan: timeout = 1
# gilsan: description = sleeps far past its timeout
import time

print("going to sleep", flush=True)
time.sleep(600)

# gilsan: expect = timeout
# gilsan: timeout = 3
# gilsan: description = a host function sleeps for an hour while the main thread waits for its stream
"""Not a deadlock: the host function is busy (asleep), not waiting for anything the process holds, so the
watchdog names no cycle and the runner's timeout ends the run."""
import time

import gilsan

stream = gilsan.Stream()
gilsan.host_launch(stream, time.sleep, 3600)
stream.synchronize()

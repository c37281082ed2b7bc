# gilsan: expect = pass
# gilsan: timeout = 20
# gilsan: description = the scenario closes its stdout and stderr (the runner's pipes see end of file early)
import os

import gilsan

stream = gilsan.Stream()
gilsan.host_launch(stream, lambda: None)
stream.synchronize()
os.close(1)
os.close(2)
stream.work(50)
stream.synchronize()

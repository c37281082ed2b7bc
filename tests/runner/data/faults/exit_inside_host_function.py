# gilsan: expect = pass
# gilsan: timeout = 20
# gilsan: description = a host function calls os._exit(0): the process ends there, from the driver's callback thread, and nothing else runs
import os

import gilsan

stream = gilsan.Stream()
gilsan.host_launch(stream, os._exit, 0)
stream.synchronize()
print("never printed")

# gilsan: expect = crash:SIGABRT
# gilsan: timeout = 20
# gilsan: description = a host function calls abort(): the process dies of SIGABRT on the driver's callback thread
import os

import gilsan

stream = gilsan.Stream()
gilsan.host_launch(stream, os.abort)
stream.synchronize()

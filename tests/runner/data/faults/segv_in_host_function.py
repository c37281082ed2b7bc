# gilsan: expect = crash:SIGSEGV
# gilsan: timeout = 20
# gilsan: description = a host function reads address 0: the process dies of SIGSEGV on the driver's callback thread
import ctypes

import gilsan

stream = gilsan.Stream()
gilsan.host_launch(stream, ctypes.string_at, 0)
stream.synchronize()

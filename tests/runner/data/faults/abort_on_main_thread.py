# gilsan: expect = crash:SIGABRT
# gilsan: timeout = 20
# gilsan: description = the main thread calls abort() while a host function waits behind device work
import os

import gilsan

stream = gilsan.Stream()
stream.work(200)
gilsan.host_launch(stream, print, "never printed")
os.abort()

# gilsan: expect = crash:SIGSEGV
# gilsan: description = the child dies of a signal
import os
import signal

os.kill(os.getpid(), signal.SIGSEGV)

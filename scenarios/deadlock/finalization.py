# gilsan: expect = deadlock:finalization
# gilsan: drivers = sim, real
# gilsan: timeout = 3
# gilsan: description = at exit, a ctypes host function needs the GIL that the exiting main thread holds
"""A host function needs the interpreter after finalization began.

An atexit handler registered before `import gilsan` runs after gilsan's own exit hook, i.e. once the
interpreter has started to shut down (gilsan marks it on the watchdog's board). The handler enqueues a
ctypes callback -- ctypes takes the GIL itself, with PyGILState_Ensure, so gilsan's trampoline cannot
keep it out of the dying interpreter -- and synchronizes with the GIL held, as shutdown code in a C
extension might. The callback waits for the GIL, the exiting main thread waits for the callback.
"""
import atexit
import ctypes


def synchronize_at_exit():
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda user_data: None)
    # The work keeps the callback from starting (and taking the GIL) while host_launch has let go of it.
    stream.work(100)
    gilsan.host_launch(stream, callback)
    stream.synchronize(hold_gil=True)
    print("not reached")


atexit.register(synchronize_at_exit)

import gilsan  # noqa: E402  (after the atexit registration on purpose: its hook must run first)

stream = gilsan.Stream()
print("leaving; the exit handler synchronizes with the GIL held", flush=True)

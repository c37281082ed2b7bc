# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = native-function
# gilsan: timeout = 3
# gilsan: description = a "native" host function that is a ctypes callback wrapping Python, then a GIL-held synchronize
"""A ctypes callback wrapping Python, passed as a native host function: to the implementation it is a
function pointer, which it rightly hands to the driver without a trampoline of its own. But ctypes takes
the GIL (PyGILState_Ensure) to run the Python function inside, so a GIL-held synchronize hangs exactly as
with a Python callable (measured on the H200 with a CFUNCTYPE through cuLaunchHostFunc).

Why it matters: "it's a native function, so the GIL can't be involved" is the mistake; the watchdog must
see through ctypes. The twin, ctypes_callback_with_gil_released.py, synchronizes with the GIL released.
"""
import ctypes

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
thunk = HostFn(lambda user_data: print("not reached: the main thread holds the GIL"))
impl.busy(stream, 200)
impl.launch_native(stream, ctypes.cast(thunk, ctypes.c_void_p).value, 0)
impl.synchronize_holding_gil(stream)
print("not reached")

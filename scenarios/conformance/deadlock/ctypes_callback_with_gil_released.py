# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = native-function
# gilsan: timeout = 30
# gilsan: description = the twin of ctypes_callback_wrapping_python: the synchronize releases the GIL
"""The fix for ctypes_callback_wrapping_python.py: synchronize with the GIL released. The program keeps
the ctypes thunk alive until the host function has run: the driver only has its address."""
import ctypes

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
ran = []
thunk = HostFn(lambda user_data: ran.append("ran"))
impl.busy(stream, 200)
impl.launch_native(stream, ctypes.cast(thunk, ctypes.c_void_p).value, 0)
impl.synchronize(stream)
assert ran == ["ran"], ran

"""An ordinary Python program (not a scenario) that hangs the way numba-cuda #317 did: a ctypes Python
host function waits for the GIL that a ctypes.PyDLL cuStreamSynchronize holds. `gilsan run -- python3
ctypes_inversion_app.py` must name the deadlock without the program knowing about gilsan. The gilsan
module (on PYTHONPATH) only provides device work that keeps the host function pending."""
import ctypes
import sys

import gilsan

driver = ctypes.CDLL("libcuda.so.1")
driver_keeping_gil = ctypes.PyDLL("libcuda.so.1")
assert driver.cuInit(0) == 0
device = ctypes.c_int()
context = ctypes.c_void_p()
assert driver.cuDeviceGet(ctypes.byref(device), 0) == 0
assert driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0
assert driver.cuCtxSetCurrent(context) == 0
stream = ctypes.c_void_p()
assert driver.cuStreamCreate(ctypes.byref(stream), 1) == 0

HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
callback = HOST_FN(lambda user_data: print("the callback ran", flush=True))
gilsan.Stream.from_handle(stream.value).work(200)
assert driver.cuLaunchHostFunc(stream, callback, None) == 0
hold_gil = len(sys.argv) > 1 and sys.argv[1] == "--hold-gil"
(driver_keeping_gil if hold_gil else driver).cuStreamSynchronize(stream)
print("synchronized", flush=True)

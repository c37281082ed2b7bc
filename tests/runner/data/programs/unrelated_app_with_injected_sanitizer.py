"""A CUDA program that knows nothing of gilsan, started with libgilsan_inject.so in CUDA_INJECTION64_PATH
and nothing else: no `gilsan run`, no watchdog board, no GILSAN_* variable. Its host function calls the
driver (cuStreamQuery), which the sanitizer must report on stderr; the program must otherwise run as it
would without the library: the same output, no crash, and its own exit status unless there was a report
(then the sanitizer's exitcode, 66, as documented). With --clean the host function makes no call."""
import ctypes
import sys

driver = ctypes.CDLL("libcuda.so.1")
assert driver.cuInit(0) == 0
device = ctypes.c_int()
context = ctypes.c_void_p()
assert driver.cuDeviceGet(ctypes.byref(device), 0) == 0
assert driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0
assert driver.cuCtxSetCurrent(context) == 0
stream = ctypes.c_void_p()
assert driver.cuStreamCreate(ctypes.byref(stream), 1) == 0

answers = []
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
clean = "--clean" in sys.argv[1:]
callback = HOST_FN(lambda user_data: answers.append(0 if clean else driver.cuStreamQuery(stream)))
for _ in range(3):
    assert driver.cuLaunchHostFunc(stream, callback, None) == 0
assert driver.cuStreamSynchronize(stream) == 0
assert driver.cuStreamDestroy_v2(stream) == 0
print(f"host functions ran: {len(answers)}", flush=True)
sys.exit(7)  # an exit status of its own, which must come through unchanged

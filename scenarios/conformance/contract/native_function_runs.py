# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = native-function
# gilsan: suppressions = native_function_runs.supp
# gilsan: timeout = 30
# gilsan: description = a native CUhostFn runs with its user data, in stream order, without the GIL
"""Native host functions: a native function pointer (here gilsan's own counter, which increments a 64-bit
word at its user data) goes to the driver as it is and runs once per launch, in stream order, even while
the main thread holds the GIL in a synchronize: a native function needs no interpreter.

Why it matters: native callbacks are the fix for the GIL deadlocks (LMCache PR #2952 moved to one); an
implementation that wraps them in a GIL-taking trampoline brings the deadlock back.
"""
import ctypes

import gilsan
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
increment = gilsan.native_test_functions()["increment_u64"]
counter = ctypes.c_uint64(0)
# Warm up with a native launch too (a Python one would put a Python host function on the stream).
impl.launch_native(stream, increment, ctypes.addressof(counter))
impl.synchronize(stream)
counter.value = 0
impl.busy(stream, 100)
for _ in range(10):
    impl.launch_native(stream, increment, ctypes.addressof(counter))
impl.synchronize_holding_gil(stream)  # hangs if the implementation made the native function take the GIL
assert counter.value == 10, counter.value
print(f"{impl.name}: 10 native host functions ran while the GIL was held")

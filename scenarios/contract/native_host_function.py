# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: description = native CUhostFn functions (ctypes pointers, int addresses) run with user_data and no GIL
"""A native host function goes to the driver as is, with its user_data, and never takes the GIL.

- libc's free, through a ctypes CFUNCTYPE(None, c_void_p) pointer, frees a block malloc'd for it: free
  has the CUhostFn signature void (*)(void*) and is safe on any thread.
- gilsan's own gilsan_native_increment_u64, by int address, increments a ctypes c_uint64 passed by
  address.
- gilsan_native_record_u64 gets a bytes-like user_data, which the module copies: the copy is what the
  function reads, even though the original is changed right after the launch.
"""
import ctypes
import ctypes.util

import gilsan

HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc_free = ctypes.cast(libc.free, HostFn)

native = gilsan.native_test_functions()
stream = gilsan.Stream()

block = libc.malloc(64)
assert block
counter = ctypes.c_uint64(0)
original = bytearray((0x1122334455667788).to_bytes(8, "little"))

stream.work(50)
gilsan.host_launch(stream, libc_free, user_data=block)
for _ in range(3):
    gilsan.host_launch(stream, native["increment_u64"], user_data=ctypes.addressof(counter))
gilsan.host_launch(stream, native["record_u64"], user_data=original)
original[:] = bytes(8)  # the module runs the function on its own copy
stream.synchronize()

assert counter.value == 3, counter.value
stats = gilsan._stats()
assert stats["native_last_word"] == 0x1122334455667788, hex(stats["native_last_word"])
assert stats["native_host_functions_enqueued"] == 5, stats
print("native host functions ran:", stats["native_test_calls"])

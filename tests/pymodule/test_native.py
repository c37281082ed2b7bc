"""Native CUhostFn functions: passed to the driver as is, with user_data, without the GIL; what the
module keeps alive for them (the ctypes object, a user_data copy) is released after they ran."""
import ctypes
import ctypes.util
import sys
import threading
import unittest

import gilsan
from support import CUDA_ERROR_INVALID_VALUE, stats_delta, wait_until

HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class NativeHostFunctions(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()
        self.native = gilsan.native_test_functions()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()

    def test_int_address_with_int_user_data(self):
        counter = ctypes.c_uint64(41)
        gilsan.host_launch(self.stream, self.native["increment_u64"], user_data=ctypes.addressof(counter))
        gilsan.host_launch(self.stream, self.native["increment_u64"], user_data=ctypes.c_void_p(ctypes.addressof(counter)))
        self.stream.synchronize()
        self.assertEqual(counter.value, 43)

    def test_bytes_like_user_data_is_copied_and_the_copy_freed_after_the_run(self):
        before = gilsan._stats()
        blocker = threading.Event()
        original = bytearray((7).to_bytes(8, "little"))
        gilsan.host_launch(self.stream, blocker.wait)
        try:
            gilsan.host_launch(self.stream, self.native["record_u64"], user_data=original)
            gilsan.host_launch(self.stream, self.native["record_u64"], user_data=memoryview(b"\x09" + bytes(7)))
            original[:] = (99).to_bytes(8, "little")
        finally:
            blocker.set()
        self.stream.synchronize()
        self.assertEqual(gilsan._stats()["native_last_word"], 9)
        delta = stats_delta(before)
        self.assertEqual(delta["native_test_calls"], 2)
        # Two copies owned by the module (plus the Python blocker): all released.
        wait_until(lambda: stats_delta(before)["payloads_live"] == 0, "the copies' release")
        self.assertEqual(delta["payloads_created"], 3)

    def test_empty_bytes_user_data_still_gets_a_pointer(self):
        pointers = []
        thunk = HostFn(pointers.append)
        gilsan.host_launch(self.stream, thunk, user_data=b"")
        gilsan.host_launch(self.stream, thunk)
        self.stream.synchronize()
        self.assertEqual(len(pointers), 2)
        self.assertTrue(pointers[0], "an empty bytes-like user_data is still a (one-byte) copy")
        self.assertIsNone(pointers[1], "no user_data is NULL")

    def test_libc_free_through_a_ctypes_pointer(self):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc.restype = ctypes.c_void_p
        libc.malloc.argtypes = [ctypes.c_size_t]
        libc.free.restype = None
        libc.free.argtypes = [ctypes.c_void_p]
        block = libc.malloc(32)
        gilsan.host_launch(self.stream, libc.free, user_data=block)  # a prototyped _FuncPtr is accepted
        gilsan.host_launch(self.stream, ctypes.cast(libc.free, HostFn), user_data=None)  # free(NULL)
        self.stream.synchronize()

    def test_a_cfunctype_wrapping_python_takes_the_gil_inside_ctypes_and_is_kept_alive(self):
        calls = []
        thunk = HostFn(lambda pointer: calls.append(pointer))
        refs = sys.getrefcount(thunk)
        blocker = threading.Event()
        gilsan.host_launch(self.stream, blocker.wait)
        try:
            gilsan.host_launch(self.stream, thunk, user_data=1234)
            self.assertEqual(sys.getrefcount(thunk), refs + 1, "the module must keep the ctypes thunk alive")
        finally:
            blocker.set()
        self.stream.synchronize()
        self.assertEqual(calls, [1234])
        wait_until(lambda: sys.getrefcount(thunk) == refs, "the thunk's release after its run")

    def test_a_failed_native_enqueue_keeps_nothing(self):
        before = gilsan._stats()
        thunk = HostFn(lambda pointer: None)
        refs = sys.getrefcount(thunk)
        gilsan._inject_error("cuLaunchHostFunc", CUDA_ERROR_INVALID_VALUE)
        with self.assertRaises(gilsan.CudaError):
            gilsan.host_launch(self.stream, thunk, user_data=b"copied")
        self.assertEqual(sys.getrefcount(thunk), refs)
        self.assertEqual(stats_delta(before)["payloads_created"], 0)

    def test_a_failed_release_marker_keeps_the_keep_alive_forever(self):
        # The native function is enqueued but the marker behind it is not: nothing will tell the module
        # when the function ran, so its ctypes object must never be released.
        before = gilsan._stats()
        calls = []
        thunk = HostFn(calls.append)
        refs = sys.getrefcount(thunk)
        gilsan._inject_error("cuLaunchHostFunc", CUDA_ERROR_INVALID_VALUE, after=1)
        with self.assertRaises(gilsan.CudaError):
            gilsan.host_launch(self.stream, thunk, user_data=5)
        self.stream.synchronize()
        gilsan._release_deferred()
        self.assertEqual(calls, [5], "the native function was enqueued and ran")
        self.assertEqual(sys.getrefcount(thunk), refs + 1, "its keep-alive must stay")
        self.assertEqual(stats_delta(before)["releases_leaked"], 1)


if __name__ == "__main__":
    unittest.main()

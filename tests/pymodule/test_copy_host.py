"""gilsan.copy_host: a host-to-host memcpy in stream order, run by a C host function that never takes the
GIL. Buffers are held until the copy ran and released exactly once; every argument error is raised before
anything is enqueued; a captured copy is replayed by every launch of the graph."""
import ctypes
import faulthandler
import sys
import threading
import unittest

import gilsan
from support import CUDA_ERROR_INVALID_VALUE, HANG_TIMEOUT, Blocker, stats_delta, wait_until


def pattern(size, seed=0):
    return bytes((i * 131 + seed * 7 + (i >> 8)) & 0xFF for i in range(size))


class CopyHostBytes(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()
        gilsan._release_deferred()

    def copy(self, dst, src, **kwargs):
        gilsan.copy_host(self.stream, dst, src, **kwargs)
        self.stream.synchronize()

    def test_sizes_arrive_intact(self):
        for size in (0, 1, 2, 63, 64, 65, 4095, 4096, 4097, 65536 * 3 + 5, 1 << 20):
            with self.subTest(size=size):
                src = pattern(size, size)
                dst = bytearray(size)
                self.copy(dst, src)
                self.assertEqual(dst, src)

    def test_odd_alignments_and_slices_touch_only_their_bytes(self):
        src_block = bytearray(pattern(9000, 3))
        for dst_offset, src_offset, size in ((1, 0, 4097), (3, 5, 1000), (7, 7, 8000), (0, 1, 1)):
            with self.subTest(dst_offset=dst_offset, src_offset=src_offset, size=size):
                dst_block = bytearray(b"\xee" * 9000)
                self.copy(memoryview(dst_block)[dst_offset:], memoryview(src_block)[src_offset:], nbytes=size)
                expected = bytearray(b"\xee" * 9000)
                expected[dst_offset:dst_offset + size] = src_block[src_offset:src_offset + size]
                self.assertEqual(dst_block, expected)

    def test_nbytes_defaults_to_len_src_and_dst_may_be_longer(self):
        dst = bytearray(b"\x01" * 10)
        self.copy(dst, b"abc")
        self.assertEqual(dst, b"abc" + b"\x01" * 7)

    def test_int_addresses_with_nbytes(self):
        src = ctypes.create_string_buffer(pattern(5000, 9), 5000)
        dst = ctypes.create_string_buffer(5001)
        self.copy(ctypes.addressof(dst) + 1, ctypes.addressof(src), nbytes=5000)
        self.assertEqual(dst.raw[1:], src.raw)
        mixed = bytearray(5000)
        self.copy(mixed, ctypes.addressof(src))  # nbytes from the buffer side
        self.assertEqual(mixed, src.raw)

    def test_pinned_and_numpy_like_buffers(self):
        pinned = gilsan.PinnedBuffer(4096)
        try:
            self.copy(pinned, pattern(4096, 1))
            out = bytearray(4096)
            self.copy(out, pinned)
            self.assertEqual(out, pattern(4096, 1))
        finally:
            pinned.close()
        ints = memoryview(bytearray(4096)).cast("I")
        self.copy(ints, pattern(4096, 2))
        self.assertEqual(ints.tobytes(), pattern(4096, 2))


class CopyHostOrder(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()
        gilsan._release_deferred()

    def test_waits_for_earlier_work_and_later_work_sees_its_bytes(self):
        src = pattern(100000, 4)
        first, second = bytearray(len(src)), bytearray(len(src))
        seen = []
        blocker = Blocker(self.stream)
        gilsan.copy_host(self.stream, first, src)
        gilsan.copy_host(self.stream, second, first)  # reads what the copy before it wrote
        gilsan.host_launch(self.stream, lambda: seen.append(bytes(second)))
        self.assertEqual(first, bytes(len(src)), "copied before the work enqueued ahead of it ran")
        blocker.open()
        self.stream.synchronize()
        self.assertEqual(second, src)
        self.assertEqual(seen, [src])

    def test_copies_complete_while_another_thread_holds_the_gil(self):
        # The holder waits for the stream inside the driver without ever releasing the GIL. Had a copy
        # needed the GIL, neither would finish: faulthandler then ends the process with every stack.
        faulthandler.dump_traceback_later(HANG_TIMEOUT, exit=True)
        try:
            sources = [pattern(70000, seed) for seed in range(8)]
            targets = [bytearray(70000) for _ in sources]
            self.stream.work(20)
            for dst, src in zip(targets, sources):
                gilsan.copy_host(self.stream, dst, src)
            holder = threading.Thread(target=self.stream.synchronize, kwargs={"hold_gil": True})
            holder.start()
            holder.join()
            self.assertEqual(targets, [bytearray(s) for s in sources])
            # And on the calling thread itself.
            self.stream.work(20)
            gilsan.copy_host(self.stream, targets[0], sources[1])
            self.stream.synchronize(hold_gil=True)
            self.assertEqual(targets[0], sources[1])
        finally:
            faulthandler.cancel_dump_traceback_later()


class CopyHostLifetime(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()
        gilsan._release_deferred()

    def test_buffers_are_held_until_the_copy_ran_then_released_once(self):
        src, dst = bytearray(pattern(3000, 5)), bytearray(3000)
        refs = (sys.getrefcount(src), sys.getrefcount(dst))
        blocker = Blocker(self.stream)
        before = gilsan._stats()
        for _ in range(3):
            gilsan.copy_host(self.stream, dst, src)
        self.assertEqual((sys.getrefcount(src), sys.getrefcount(dst)), (refs[0] + 3, refs[1] + 3))
        with self.assertRaises(BufferError, msg="the Py_buffer of dst must be held while the copy is pending"):
            dst.extend(b"x")
        blocker.open()
        self.stream.synchronize()
        wait_until(lambda: (sys.getrefcount(src), sys.getrefcount(dst)) == refs, "the buffers' release")
        gilsan._release_deferred()
        self.assertEqual((sys.getrefcount(src), sys.getrefcount(dst)), refs, "released more than once")
        delta = stats_delta(before)
        self.assertEqual(delta["payloads_created"], 3)
        self.assertEqual(delta["payloads_released"], 4, "the three copies' and the blocker's")
        self.assertEqual(gilsan._stats()["payloads_live"], 0)
        self.assertEqual(delta["releases_leaked"], 0)
        dst.extend(b"x")  # no export left
        self.assertEqual(dst[:3000], src)

    def test_pinned_buffer_cannot_close_under_a_pending_copy(self):
        pinned = gilsan.PinnedBuffer(64)
        blocker = Blocker(self.stream)
        gilsan.copy_host(self.stream, pinned, b"z" * 64)
        with self.assertRaises(BufferError):
            pinned.close()
        blocker.open()
        self.stream.synchronize()
        wait_until(lambda: self._closes(pinned), "the pinned buffer's view to be released")

    @staticmethod
    def _closes(pinned):
        try:
            pinned.close()
            return True
        except BufferError:
            return False

    def test_failed_enqueue_releases_the_buffers_before_raising(self):
        src, dst = bytearray(100), bytearray(100)
        refs = (sys.getrefcount(src), sys.getrefcount(dst))
        gilsan._inject_error("cuLaunchHostFunc", CUDA_ERROR_INVALID_VALUE)
        with self.assertRaises(gilsan.CudaError) as raised:
            gilsan.copy_host(self.stream, dst, src)
        self.assertEqual(raised.exception.call, "cuLaunchHostFunc")
        self.assertEqual((sys.getrefcount(src), sys.getrefcount(dst)), refs)


class CopyHostErrors(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()
        self.before = gilsan._stats()

    def tearDown(self):
        self.assertEqual(stats_delta(self.before)["payloads_created"], 0, "an invalid copy enqueued something")
        self.stream.synchronize()
        self.stream.close()

    def check(self, error, text, *args, **kwargs):
        with self.assertRaises(error) as raised:
            gilsan.copy_host(self.stream, *args, **kwargs)
        self.assertIn(text, str(raised.exception))
        self.assertIn("copy_host", str(raised.exception))

    def test_read_only_dst(self):
        self.check(ValueError, "read-only", b"\0" * 4, b"abcd")
        self.check(ValueError, "read-only", memoryview(bytearray(4)).toreadonly(), b"abcd")

    def test_short_dst_or_src(self):
        self.check(ValueError, "dst holds 3 bytes, fewer than the 4", bytearray(3), b"abcd")
        self.check(ValueError, "src holds 4 bytes, fewer than the 5", bytearray(8), b"abcd", nbytes=5)

    def test_bad_addresses(self):
        self.check(ValueError, "null address", 0, b"abcd")
        self.check(ValueError, "null address", bytearray(4), 0, nbytes=4)
        self.check(OverflowError, "negative", -8, b"abcd")
        self.check(OverflowError, "does not fit", 1 << 70, b"abcd")
        self.check(TypeError, "nbytes must be given", 4096, 8192)

    def test_bad_types_and_values(self):
        self.check(TypeError, "bytes-like object or an int address", "text", b"abcd")
        self.check(TypeError, "bytes-like object or an int address", bytearray(4), 1.5)
        self.check(ValueError, "nbytes must be >= 0", bytearray(4), b"abcd", nbytes=-1)
        self.check(TypeError, "nbytes must be an int", bytearray(4), b"abcd", nbytes="4")
        self.check(ValueError, "C-contiguous", memoryview(bytearray(8))[::2], b"abcd")
        block = bytearray(16)
        self.check(ValueError, "overlap", memoryview(block)[4:], memoryview(block)[:8])

    def test_closed_stream(self):
        closed = gilsan.Stream()
        closed.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            gilsan.copy_host(closed, bytearray(4), b"abcd")
        with self.assertRaisesRegex(TypeError, "gilsan.Stream"):
            gilsan.copy_host(None, bytearray(4), b"abcd")


class CapturedCopyHost(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()
        gilsan._release_deferred()

    def test_each_replay_copies_again_and_the_graph_owns_the_buffers(self):
        src, dst = bytearray(pattern(5000, 1)), bytearray(5000)
        refs = (sys.getrefcount(src), sys.getrefcount(dst))
        self.stream.begin_capture()
        gilsan.copy_host(self.stream, dst, src)
        graph = self.stream.end_capture()
        self.assertEqual(dst, bytes(5000), "a captured copy must not run at capture")
        self.assertEqual((sys.getrefcount(src), sys.getrefcount(dst)), (refs[0] + 1, refs[1] + 1))
        exec_ = graph.instantiate()
        for seed in (2, 3, 4):
            src[:] = pattern(5000, seed)
            exec_.launch(self.stream)
            self.stream.synchronize()
            self.assertEqual(dst, src, f"replay with seed {seed}")
        graph.close()
        self.stream.synchronize()
        gilsan._release_deferred()
        self.assertEqual(sys.getrefcount(dst), refs[1] + 1, "released while the exec still replays the copy")
        exec_.close()
        wait_until(lambda: (sys.getrefcount(src), sys.getrefcount(dst)) == refs, "release after graph and exec")

    def test_captured_int_addresses_replay(self):
        src = ctypes.create_string_buffer(b"replayed", 8)
        dst = ctypes.create_string_buffer(8)
        self.stream.begin_capture()
        gilsan.copy_host(self.stream, ctypes.addressof(dst), ctypes.addressof(src), nbytes=8)
        with self.stream.end_capture() as graph, graph.instantiate() as exec_:
            for _ in range(2):
                ctypes.memset(dst, 0, 8)
                exec_.launch(self.stream)
                self.stream.synchronize()
                self.assertEqual(dst.raw, b"replayed")


if __name__ == "__main__":
    unittest.main()

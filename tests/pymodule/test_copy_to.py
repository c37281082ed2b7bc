"""gilsan.copy_to and gilsan.PinnedRing: device memory into any writable host buffer, directly or staged
chunk by chunk through pinned slots (cuMemcpyDtoHAsync, then a GIL-free copy_host of the slot). The bytes
arrive intact at every size around the slot size, later work on the stream sees them, a thread holding
the GIL does not stop them, and everything held is released exactly once."""
import faulthandler
import os
import sys
import threading
import unittest

import gilsan
from support import CUDA_ERROR_INVALID_VALUE, HANG_TIMEOUT, Blocker, stats_delta, wait_until

SLOT = 256 * 1024  # several HostCopyWorkers parts per slot, so host_threads > 1 really fans out
DEVICE_BYTES = 10 * SLOT + SLOT // 2


class CopyToCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.content = os.urandom(DEVICE_BYTES)
        cls.device = gilsan.DeviceBuffer(DEVICE_BYTES)
        cls.device.copy_from_host(cls.content)

    @classmethod
    def tearDownClass(cls):
        cls.device.free()

    def setUp(self):
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()
        gilsan._release_deferred()


class CopyToBytes(CopyToCase):
    SIZES = (0, 1, SLOT - 1, SLOT, SLOT + 1, 3 * SLOT + 17, DEVICE_BYTES)

    def check_sizes(self, staging):
        for size in self.SIZES:
            with self.subTest(size=size, staging=staging):
                dst = bytearray(b"\xee" * (size + 3))
                gilsan.copy_to(dst, self.device, self.stream, staging=staging, nbytes=size)
                self.stream.synchronize()
                self.assertEqual(dst[:size], self.content[:size])
                self.assertEqual(dst[size:], b"\xee" * 3, "wrote past nbytes")

    def test_direct(self):
        self.check_sizes(None)

    def test_staged_one_host_thread(self):
        with gilsan.PinnedRing(2, SLOT) as ring:
            self.check_sizes(ring)

    def test_staged_several_host_threads(self):
        with gilsan.PinnedRing(3, SLOT, host_threads=3) as ring:
            self.assertEqual((ring.slots, ring.slot_bytes, ring.host_threads), (3, SLOT, 3))
            self.check_sizes(ring)

    def test_one_slot_ring_and_slots_smaller_than_a_page(self):
        for slots, slot_bytes in ((1, SLOT), (4, 1000), (2, 1)):
            with self.subTest(slots=slots, slot_bytes=slot_bytes), gilsan.PinnedRing(slots, slot_bytes) as ring:
                size = min(DEVICE_BYTES, slot_bytes * 7 + 3)
                dst = bytearray(size)
                gilsan.copy_to(dst, self.device, self.stream, staging=ring, nbytes=size)
                self.stream.synchronize()
                self.assertEqual(dst, self.content[:size])

    def test_odd_alignments_on_both_sides(self):
        with gilsan.PinnedRing(2, SLOT, host_threads=2) as ring:
            for dst_offset, src_offset in ((1, 0), (0, 3), (7, 5)):
                with self.subTest(dst_offset=dst_offset, src_offset=src_offset):
                    size = 2 * SLOT + 1001
                    block = bytearray(size + dst_offset)
                    gilsan.copy_to(memoryview(block)[dst_offset:], self.device.ptr + src_offset, self.stream,
                                   staging=ring, nbytes=size)
                    self.stream.synchronize()
                    self.assertEqual(block[dst_offset:], self.content[src_offset:src_offset + size])
                    self.assertEqual(block[:dst_offset], bytes(dst_offset))

    def test_default_size_is_the_device_buffer_and_pinned_dst_works(self):
        pinned = gilsan.PinnedBuffer(DEVICE_BYTES)
        try:
            with gilsan.PinnedRing(2, SLOT) as ring:
                gilsan.copy_to(pinned, self.device, self.stream, staging=ring)
                self.stream.synchronize()
            self.assertEqual(bytes(pinned), self.content)
        finally:
            self.stream.synchronize()
            gilsan._release_deferred()
            pinned.close()

    def test_one_ring_serves_several_streams_and_calls(self):
        other = gilsan.Stream()
        try:
            with gilsan.PinnedRing(2, SLOT) as ring:
                outs = [bytearray(DEVICE_BYTES) for _ in range(4)]
                for index, out in enumerate(outs):
                    gilsan.copy_to(out, self.device, other if index % 2 else self.stream, staging=ring)
                other.synchronize()
                self.stream.synchronize()
                for out in outs:
                    self.assertEqual(out, self.content)
        finally:
            other.synchronize()
            other.close()


    def test_threads_sharing_a_ring_never_mix_their_chunks(self):
        # Many small chunks per call: the enqueues of the two threads would interleave on the slots.
        with gilsan.PinnedRing(2, 4096, host_threads=2) as ring:
            results = {}

            def worker(name):
                with gilsan.Stream() as stream:
                    outs = [bytearray(64 * 1024) for _ in range(8)]
                    for out in outs:
                        gilsan.copy_to(out, self.device, stream, staging=ring, nbytes=len(out))
                    stream.synchronize()
                    results[name] = all(out == self.content[:len(out)] for out in outs)

            threads = [threading.Thread(target=worker, args=(name,)) for name in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(HANG_TIMEOUT)
            self.assertEqual(results, {0: True, 1: True, 2: True, 3: True})


class CopyToOrder(CopyToCase):
    def test_later_work_on_the_stream_sees_the_complete_copy(self):
        for staging in (gilsan.PinnedRing(2, SLOT), gilsan.PinnedRing(3, SLOT, host_threads=4)):
            with self.subTest(staging=staging):
                seen = []
                dst = bytearray(DEVICE_BYTES)
                blocker = Blocker(self.stream)
                gilsan.copy_to(dst, self.device, self.stream, staging=staging)
                gilsan.host_launch(self.stream, lambda: seen.append(bytes(dst)))
                self.assertEqual(dst, bytes(DEVICE_BYTES), "copied before the work enqueued ahead of it ran")
                blocker.open()
                self.stream.synchronize()
                self.assertEqual(seen, [self.content])
                staging.close()

    def test_direct_copy_to_pageable_memory_returns_once_done(self):
        # As cuMemcpyDtoHAsync into pageable memory does: the call itself waits for the stream.
        seen = []
        dst = bytearray(DEVICE_BYTES)
        self.stream.work(20)
        gilsan.copy_to(dst, self.device, self.stream)
        self.assertEqual(dst, self.content)
        gilsan.host_launch(self.stream, lambda: seen.append(bytes(dst)))
        self.stream.synchronize()
        self.assertEqual(seen, [self.content])

    def test_copies_complete_while_another_thread_holds_the_gil(self):
        # The holder waits for the stream inside the driver and never releases the GIL; a staged copy needs
        # its host halves to run meanwhile. A hang ends the process through faulthandler, with every stack.
        faulthandler.dump_traceback_later(HANG_TIMEOUT, exit=True)
        try:
            for host_threads in (1, 3):
                ring = gilsan.PinnedRing(2, SLOT, host_threads=host_threads)
                with self.subTest(host_threads=host_threads), ring:
                    outs = [bytearray(DEVICE_BYTES) for _ in range(2)]
                    self.stream.work(20)
                    for out in outs:
                        gilsan.copy_to(out, self.device, self.stream, staging=ring)
                    holder = threading.Thread(target=self.stream.synchronize, kwargs={"hold_gil": True})
                    holder.start()
                    holder.join()
                    self.assertEqual(outs, [bytearray(self.content)] * 2)
        finally:
            faulthandler.cancel_dump_traceback_later()

    def test_close_waits_for_the_copies_that_use_the_ring(self):
        ring = gilsan.PinnedRing(2, SLOT, host_threads=2)
        dst = bytearray(DEVICE_BYTES)
        blocker = Blocker(self.stream)
        gilsan.copy_to(dst, self.device, self.stream, staging=ring)
        closer = threading.Thread(target=ring.close)
        closer.start()
        closer.join(0.05)
        self.assertTrue(closer.is_alive(), "close() returned while copies still use the slots")
        blocker.open()
        closer.join(HANG_TIMEOUT)
        self.assertFalse(closer.is_alive())
        self.assertTrue(ring.closed)
        self.stream.synchronize()
        self.assertEqual(dst, self.content)


class CopyToLifetime(CopyToCase):
    def test_dst_device_buffer_and_ring_are_held_until_done_then_released_once(self):
        ring = gilsan.PinnedRing(2, SLOT, host_threads=2)
        dst = bytearray(DEVICE_BYTES)
        objects = (dst, self.device, ring)
        refs = [sys.getrefcount(o) for o in objects]
        blocker = Blocker(self.stream)
        before = gilsan._stats()
        gilsan.copy_to(dst, self.device, self.stream, staging=ring)
        self.assertTrue(all(sys.getrefcount(o) > r for o, r in zip(objects, refs)), "not held while pending")
        with self.assertRaises(BufferError):
            dst.extend(b"x")
        blocker.open()
        self.stream.synchronize()
        wait_until(lambda: [sys.getrefcount(o) for o in objects] == refs, "the release of dst, device, ring")
        gilsan._release_deferred()
        self.assertEqual([sys.getrefcount(o) for o in objects], refs, "released more than once")
        delta = stats_delta(before)
        self.assertEqual(delta["payloads_created"], 11, "one host copy per chunk")
        self.assertEqual(gilsan._stats()["payloads_live"], 0)
        self.assertEqual(delta["releases_leaked"], 0)
        self.assertEqual(dst, self.content)
        ring.close()

    def test_direct_copy_into_pinned_memory_holds_dst_until_done(self):
        pinned = gilsan.PinnedBuffer(DEVICE_BYTES)
        blocker = Blocker(self.stream)
        gilsan.copy_to(pinned, self.device, self.stream)
        with self.assertRaises(BufferError, msg="dst must stay exported while the copy is pending"):
            pinned.close()
        blocker.open()
        self.stream.synchronize()
        self.assertEqual(bytes(pinned), self.content)
        wait_until(lambda: CopyToLifetime._closes(pinned), "the release of dst")

    @staticmethod
    def _closes(pinned):
        try:
            pinned.close()
            return True
        except BufferError:
            return False

    def test_a_failure_after_some_chunks_releases_everything_once(self):
        with gilsan.PinnedRing(2, SLOT) as ring:
            dst = bytearray(DEVICE_BYTES)
            ref = sys.getrefcount(dst)
            before = gilsan._stats()
            gilsan._inject_error("cuLaunchHostFunc", CUDA_ERROR_INVALID_VALUE, after=3)
            with self.assertRaises(gilsan.CudaError) as raised:
                gilsan.copy_to(dst, self.device, self.stream, staging=ring)
            self.assertEqual(raised.exception.call, "cuLaunchHostFunc")
            self.stream.synchronize()
            wait_until(lambda: sys.getrefcount(dst) == ref, "the release of the chunks that were enqueued")
            self.assertEqual(stats_delta(before)["payloads_created"], 4)
            self.assertEqual(gilsan._stats()["payloads_live"], 0)
            self.assertEqual(dst[:3 * SLOT], self.content[:3 * SLOT])
            # The ring stays usable.
            gilsan.copy_to(dst, self.device, self.stream, staging=ring)
            self.stream.synchronize()
            self.assertEqual(dst, self.content)


class CopyToErrors(CopyToCase):
    def setUp(self):
        super().setUp()
        self.ring = gilsan.PinnedRing(2, 4096)
        self.before = gilsan._stats()

    def tearDown(self):
        self.assertEqual(stats_delta(self.before)["payloads_created"], 0, "an invalid copy enqueued something")
        self.ring.close()
        super().tearDown()

    def check(self, error, text, dst, src, **kwargs):
        for staging in (None, self.ring):
            with self.subTest(staging=staging), self.assertRaises(error) as raised:
                gilsan.copy_to(dst, src, self.stream, staging=staging, **kwargs)
            self.assertIn(text, str(raised.exception))

    def test_read_only_or_short_dst(self):
        self.check(ValueError, "read-only", bytes(DEVICE_BYTES), self.device)
        self.check(ValueError, "dst holds 10 bytes, fewer than the", bytearray(10), self.device)
        self.check(ValueError, "device_src holds", bytearray(DEVICE_BYTES + 1), self.device, nbytes=DEVICE_BYTES + 1)

    def test_bad_addresses(self):
        self.check(ValueError, "null address", bytearray(8), 0, nbytes=8)
        self.check(OverflowError, "negative", bytearray(8), -1, nbytes=8)
        self.check(ValueError, "null address", 0, self.device, nbytes=8)
        self.check(TypeError, "DeviceBuffer or an int", bytearray(8), b"device?")
        self.check(TypeError, "nbytes must be given", 4096, self.device.ptr)

    def test_device_address_the_driver_refuses(self):
        for staging in (None, self.ring):
            with self.subTest(staging=staging), self.assertRaises(gilsan.CudaError) as raised:
                gilsan.copy_to(bytearray(64), 0x10, self.stream, staging=staging, nbytes=64)
            self.assertEqual(raised.exception.call, "cuMemcpyDtoHAsync")

    def test_freed_device_buffer_closed_ring_wrong_staging(self):
        freed = gilsan.DeviceBuffer(16)
        freed.free()
        self.check(ValueError, "freed", bytearray(16), freed)
        closed = gilsan.PinnedRing(1, 16)
        closed.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            gilsan.copy_to(bytearray(16), self.device, self.stream, staging=closed, nbytes=16)
        with self.assertRaisesRegex(TypeError, "PinnedRing"):
            gilsan.copy_to(bytearray(16), self.device, self.stream, staging=bytearray(16), nbytes=16)

    def test_ring_arguments(self):
        for args, kwargs, error in (((0, 16), {}, ValueError), ((2, 0), {}, ValueError),
                                    ((2, 16), {"host_threads": 0}, ValueError),
                                    ((2, 16), {"host_threads": 100000}, ValueError),
                                    ((1 << 40, 1 << 40), {}, OverflowError)):
            with self.subTest(args=args, kwargs=kwargs), self.assertRaises(error):
                gilsan.PinnedRing(*args, **kwargs)


class CapturedCopyTo(CopyToCase):
    """copy_to on a capturing stream: every launch of the graph copies what the device memory holds then,
    staged chunks running in turn on the captured stream; the graph owns dst and the device buffer and
    holds the ring, which refuses to close until the graph and its execs are gone."""

    SIZE = 5 * SLOT + 7  # six chunks, more than the rings' slots

    def setUp(self):
        super().setUp()
        self.source = gilsan.DeviceBuffer(self.SIZE)
        self.source.memset(0)

    def tearDown(self):
        super().tearDown()
        self.source.free()

    def capture(self, dst, staging, after=None):
        """The graph of copy_to(dst, self.source) on self.stream, then `after()` when given."""
        self.stream.begin_capture()
        try:
            gilsan.copy_to(dst, self.source, self.stream, staging=staging)
            if after is not None:
                after()
        finally:
            graph = self.stream.end_capture()
        return graph

    def change_source(self, launch):
        """New device contents before a launch, written outside the graph's stream; returns them."""
        if launch == 1:
            with gilsan.Stream() as other:
                self.source.memset(0xA5, stream=other)
                other.synchronize()
            return b"\xa5" * self.SIZE
        content = os.urandom(self.SIZE)  # random bytes: a chunk landing at the wrong offset shows
        self.source.copy_from_host(content)
        return content

    def test_each_launch_copies_the_current_device_contents(self):
        rings = (None, gilsan.PinnedRing(2, SLOT), gilsan.PinnedRing(2, SLOT, host_threads=3),
                 gilsan.PinnedRing(1, 4096))
        for staging in rings:
            with self.subTest(staging=staging and (staging.slots, staging.slot_bytes, staging.host_threads)):
                dst = bytearray(b"\xee" * self.SIZE)
                with self.capture(dst, staging) as graph, graph.instantiate() as exec_:
                    self.assertEqual(dst, b"\xee" * self.SIZE, "a captured copy must not run at capture")
                    for launch in range(3):
                        content = self.change_source(launch)
                        dst[:] = b"\xee" * self.SIZE
                        exec_.launch(self.stream)
                        self.stream.synchronize()
                        self.assertEqual(dst, content, f"launch {launch}")
                self.stream.synchronize()
                if staging is not None:
                    wait_until(lambda: CapturedCopyTo._closes(staging), "the graph's hold on the ring")

    def test_later_captured_work_sees_the_complete_copy(self):
        seen = []
        dst = bytearray(self.SIZE)
        with gilsan.PinnedRing(2, SLOT) as ring:
            graph = self.capture(dst, ring, after=lambda: gilsan.host_launch(self.stream,
                                                                            lambda: seen.append(bytes(dst))))
            with graph, graph.instantiate() as exec_:
                expected = []
                for launch in (0, 2):
                    expected.append(self.change_source(launch))
                    exec_.launch(self.stream)
                    self.stream.synchronize()
                self.assertEqual(seen, expected)
            self.stream.synchronize()
            wait_until(lambda: CapturedCopyTo._closes(ring), "the graph's hold on the ring")

    def test_the_graph_owns_what_it_copies_and_holds_the_ring_until_it_and_its_execs_are_gone(self):
        ring = gilsan.PinnedRing(2, SLOT, host_threads=2)
        dst = bytearray(self.SIZE)
        objects = (dst, self.source, ring)
        refs = [sys.getrefcount(o) for o in objects]
        before = gilsan._stats()
        graph = self.capture(dst, ring)
        self.assertEqual([sys.getrefcount(o) for o in objects], [r + 1 for r in refs])
        self.assertEqual(stats_delta(before)["payloads_created"], 1 + 6, "the graph's hold, one host node per chunk")
        exec_ = graph.instantiate()
        graph.close()
        self.stream.synchronize()
        gilsan._release_deferred()
        with self.assertRaisesRegex(BufferError, "PinnedRing.close: 1 captured copy_to"):
            ring.close()
        with self.assertRaisesRegex(BufferError, "PinnedRing.__init__"):
            ring.__init__(1, 16)
        self.assertFalse(ring.closed)
        content = self.change_source(0)
        exec_.launch(self.stream)  # the exec alone still replays the copy through the ring's slots
        self.stream.synchronize()
        self.assertEqual(dst, content)
        exec_.close()
        wait_until(lambda: [sys.getrefcount(o) for o in objects] == refs, "the release of dst, source, ring")
        gilsan._release_deferred()
        self.assertEqual([sys.getrefcount(o) for o in objects], refs, "released more than once")
        self.assertEqual(gilsan._stats()["payloads_live"], 0)
        self.assertEqual(stats_delta(before)["releases_leaked"], 0)
        ring.close()
        self.assertTrue(ring.closed)

    def test_a_failure_part_way_leaves_the_graph_holding_what_its_nodes_use(self):
        # (entry point that fails, successful calls before it, payloads made: the graph's hold + chunks)
        for entry_point, after, payloads in (("cuLaunchHostFunc", 2, 1 + 3), ("cuMemcpyDtoHAsync", 0, 1)):
            with self.subTest(entry_point=entry_point, after=after):
                ring = gilsan.PinnedRing(2, SLOT)
                dst = bytearray(self.SIZE)
                refs = (sys.getrefcount(dst), sys.getrefcount(ring))
                before = gilsan._stats()
                self.stream.begin_capture()
                try:
                    gilsan._inject_error(entry_point, CUDA_ERROR_INVALID_VALUE, after=after)
                    with self.assertRaises(gilsan.CudaError) as raised:
                        gilsan.copy_to(dst, self.source, self.stream, staging=ring)
                    self.assertEqual(raised.exception.call, entry_point)
                finally:
                    gilsan._inject_error(entry_point, CUDA_ERROR_INVALID_VALUE, count=0)
                    graph = self.stream.end_capture()
                self.assertEqual(stats_delta(before)["payloads_created"], payloads)
                with self.assertRaises(BufferError, msg="the graph holds the ring its captured nodes use"):
                    ring.close()
                graph.close()
                wait_until(lambda: (sys.getrefcount(dst), sys.getrefcount(ring)) == refs, "the graph's release")
                self.assertEqual(gilsan._stats()["payloads_live"], 0)
                ring.close()

    def test_a_ring_dropped_after_capture_lives_as_long_as_the_graph(self):
        dst = bytearray(self.SIZE)
        before = gilsan._stats()
        graph = self.capture(dst, gilsan.PinnedRing(2, SLOT, host_threads=2))  # the graph's is the only reference
        with graph, graph.instantiate() as exec_:
            for launch in range(2):
                content = self.change_source(launch)
                exec_.launch(self.stream)
                self.stream.synchronize()
                self.assertEqual(dst, content, f"launch {launch}")
        self.stream.synchronize()
        wait_until(lambda: gilsan._stats()["payloads_live"] == 0, "the graph's release (and with it the ring's end)")
        self.assertEqual(stats_delta(before)["releases_leaked"], 0)

    def test_nothing_to_copy_captures_nothing_and_takes_no_hold(self):
        with gilsan.PinnedRing(2, SLOT) as ring:
            before = gilsan._stats()
            self.stream.begin_capture()
            gilsan.copy_to(bytearray(4), self.source, self.stream, staging=ring, nbytes=0)
            self.stream.end_capture().close()
            self.assertEqual(stats_delta(before)["payloads_created"], 0)
        self.assertTrue(ring.closed)

    @staticmethod
    def _closes(ring):
        try:
            ring.close()
            return True
        except BufferError:
            return False


class HostMemcpy(unittest.TestCase):
    def test_threads_split_the_copy_and_every_byte_arrives(self):
        src = os.urandom(3 * 1024 * 1024 + 11)
        for threads in (1, 2, 5, 16):
            with self.subTest(threads=threads):
                dst = bytearray(len(src))
                gilsan.host_memcpy(dst, src, threads=threads)
                self.assertEqual(dst, src)

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "threads must be between"):
            gilsan.host_memcpy(bytearray(4), b"abcd", threads=0)
        with self.assertRaisesRegex(ValueError, "host_memcpy: dst is read-only"):
            gilsan.host_memcpy(b"abcd", b"abcd")


if __name__ == "__main__":
    unittest.main()

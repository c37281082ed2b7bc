"""Every error path of the module raises a clear Python exception and enqueues nothing."""
import ctypes
import sys
import unittest

import gilsan
from support import CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_READY, stats_delta

HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def nothing(_):
    pass


class HostLaunchArguments(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()
        self.before = gilsan._stats()

    def tearDown(self):
        self.stream.synchronize()
        delta = stats_delta(self.before)
        self.assertEqual(delta["host_functions_enqueued"] + delta["native_host_functions_enqueued"], 0,
                         "an error path enqueued something")
        self.assertEqual(delta["payloads_live"], 0, "an error path kept a reference")
        self.stream.close()

    def assert_raises_naming(self, exception, words, fn, *args, **kwargs):
        with self.assertRaises(exception) as raised:
            fn(*args, **kwargs)
        for word in words:
            self.assertIn(word, str(raised.exception))

    def test_too_few_arguments(self):
        self.assert_raises_naming(TypeError, ["host_launch(stream, fn"], gilsan.host_launch, self.stream)

    def test_not_a_stream(self):
        self.assert_raises_naming(TypeError, ["host_launch", "gilsan.Stream", "int"], gilsan.host_launch, 1, print)

    def test_closed_stream(self):
        closed = gilsan.Stream()
        closed.close()
        self.assert_raises_naming(ValueError, ["host_launch", "closed"], gilsan.host_launch, closed, print)

    def test_non_callable(self):
        for fn in ("print", None, 1.5, [print]):
            with self.subTest(fn=fn):
                self.assert_raises_naming(TypeError, ["host_launch", "callable", type(fn).__name__],
                                          gilsan.host_launch, self.stream, fn)

    def test_a_bool_is_not_an_address(self):
        self.assert_raises_naming(TypeError, ["callable"], gilsan.host_launch, self.stream, True)

    def test_stream_of_another_context(self):
        other = gilsan.Context(device=0, create=True)
        with other:
            foreign = gilsan.Stream()
        self.assertNotEqual(foreign.context, gilsan.current_context())
        arg = object()
        refs = sys.getrefcount(arg)
        self.assert_raises_naming(ValueError, ["host_launch", "context"], gilsan.host_launch, foreign, print, arg)
        self.assertEqual(sys.getrefcount(arg), refs)
        with other:
            gilsan.host_launch(foreign, nothing, None)  # fine once its context is current
            foreign.synchronize()
        foreign.close()
        other.close()
        self.before = gilsan._stats()

    def test_wrong_ctypes_prototypes(self):
        prototypes = [
            ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p),
            ctypes.CFUNCTYPE(None, ctypes.c_int),
            ctypes.CFUNCTYPE(None),
            ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p),
            ctypes.PYFUNCTYPE(None, ctypes.c_void_p),
        ]
        for prototype in prototypes:
            with self.subTest(prototype=prototype):
                self.assert_raises_naming(TypeError, ["CUhostFn", "CFUNCTYPE(None, ctypes.c_void_p)"],
                                          gilsan.host_launch, self.stream, prototype(nothing))

    def test_a_libc_function_without_a_prototype_is_refused(self):
        libc = ctypes.CDLL(None)
        self.assert_raises_naming(TypeError, ["CUhostFn"], gilsan.host_launch, self.stream, libc.free)

    def test_native_functions_take_only_user_data(self):
        address = gilsan.native_test_functions()["increment_u64"]
        self.assert_raises_naming(TypeError, ["only user_data"], gilsan.host_launch, self.stream, address, 1)
        self.assert_raises_naming(TypeError, ["only user_data"], gilsan.host_launch, self.stream, address,
                                  user_data=None, other=1)
        self.assert_raises_naming(TypeError, ["only user_data"], gilsan.host_launch, self.stream, HostFn(nothing), 1)

    def test_bad_addresses(self):
        self.assert_raises_naming(ValueError, ["null"], gilsan.host_launch, self.stream, 0)
        self.assert_raises_naming(ValueError, ["null"], gilsan.host_launch, self.stream, HostFn())
        with self.assertRaises(OverflowError):
            gilsan.host_launch(self.stream, -1)
        with self.assertRaises(OverflowError):
            gilsan.host_launch(self.stream, 1 << 64)

    def test_bad_user_data(self):
        address = gilsan.native_test_functions()["record_u64"]
        self.assert_raises_naming(TypeError, ["user_data", "float"], gilsan.host_launch, self.stream, address,
                                  user_data=1.0)
        with self.assertRaises(OverflowError):
            gilsan.host_launch(self.stream, address, user_data=-5)


class CudaErrors(unittest.TestCase):
    def test_cuda_error_carries_name_code_and_call(self):
        stream = gilsan.Stream()
        gilsan._inject_error("cuStreamSynchronize", CUDA_ERROR_INVALID_VALUE)
        with self.assertRaises(gilsan.CudaError) as raised:
            stream.synchronize()
        error = raised.exception
        self.assertIsInstance(error, RuntimeError)
        self.assertEqual((error.name, error.code, error.call),
                         ("CUDA_ERROR_INVALID_VALUE", CUDA_ERROR_INVALID_VALUE, "cuStreamSynchronize"))
        self.assertEqual(str(error), "cuStreamSynchronize failed: CUDA_ERROR_INVALID_VALUE (1)")
        stream.synchronize()  # one injected failure only
        stream.close()

    def test_injection_rejects_success_and_can_be_cleared(self):
        with self.assertRaises(ValueError):
            gilsan._inject_error("cuStreamQuery", 0)
        gilsan._inject_error("cuStreamQuery", CUDA_ERROR_INVALID_VALUE, count=5)
        gilsan._inject_error("cuStreamQuery", CUDA_ERROR_INVALID_VALUE, count=0)
        self.assertTrue(gilsan.Stream().query())

    def test_query_reports_not_ready_as_false(self):
        stream = gilsan.Stream()
        gilsan._inject_error("cuStreamQuery", CUDA_ERROR_NOT_READY)
        self.assertFalse(stream.query())
        event = gilsan.Event()
        event.record(stream)
        gilsan._inject_error("cuEventQuery", CUDA_ERROR_NOT_READY)
        self.assertFalse(event.query())
        stream.synchronize()
        self.assertTrue(event.query())


class ReleaseErrors(unittest.TestCase):
    def test_a_failed_destroy_in_a_dealloc_goes_to_the_unraisable_hook(self):
        seen = []
        previous, sys.unraisablehook = sys.unraisablehook, seen.append
        try:
            stream = gilsan.Stream()
            gilsan._inject_error("cuStreamDestroy", CUDA_ERROR_INVALID_VALUE)
            del stream
        finally:
            sys.unraisablehook = previous
        self.assertEqual(len(seen), 1)
        self.assertIsInstance(seen[0].exc_value, gilsan.CudaError)
        self.assertEqual(seen[0].exc_value.call, "cuStreamDestroy")
        self.assertIn("while destroying a gilsan.Stream", seen[0].err_msg)

    def test_a_failed_close_raises_and_leaves_the_object_closed(self):
        event = gilsan.Event()
        gilsan._inject_error("cuEventDestroy", CUDA_ERROR_INVALID_VALUE)
        with self.assertRaises(gilsan.CudaError):
            event.close()
        self.assertIsNone(event.handle)
        event.close()


class VocabularyErrors(unittest.TestCase):
    def test_stream_arguments(self):
        stream = gilsan.Stream()
        with self.assertRaises(ValueError):
            stream.work(-1)
        with self.assertRaisesRegex(ValueError, "mode"):
            stream.begin_capture(mode="sideways")
        with self.assertRaisesRegex(TypeError, "int"):
            gilsan.Stream.from_handle("0x1")
        with self.assertRaisesRegex(TypeError, "gilsan.Event"):
            stream.wait_event(stream)
        stream.close()
        stream.close()  # closing twice is fine
        with self.assertRaisesRegex(ValueError, "closed"):
            stream.synchronize()

    def test_closed_event_and_context(self):
        event = gilsan.Event()
        event.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            event.synchronize()
        context = gilsan.Context()
        context.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            context.push()

    def test_context_pop_must_pop_this_context(self):
        created = gilsan.Context(create=True)
        primary = gilsan.Context()
        with created:
            with self.assertRaisesRegex(RuntimeError, "not this context"):
                primary.pop()  # pops `created`, which is then no longer current
            created.push()  # put it back for the with-block's pop
        created.close()
        primary.close()

    def test_memory_arguments(self):
        stream = gilsan.Stream()
        device = gilsan.DeviceBuffer(16)
        with self.assertRaisesRegex(ValueError, "do not fit"):
            device.copy_from_host(bytes(17))
        with self.assertRaisesRegex(ValueError, "do not fit"):
            device.copy_to_host(bytearray(8), offset=9)
        with self.assertRaisesRegex(TypeError, "PinnedBuffer"):
            device.copy_from_host(bytes(8), stream=stream)
        with self.assertRaises(BufferError):
            device.copy_to_host(bytes(8))  # read-only destination
        with self.assertRaises(ValueError):
            gilsan.DeviceBuffer(0)
        pinned = gilsan.PinnedBuffer(16)
        view = memoryview(pinned)
        with self.assertRaises(BufferError):
            pinned.close()
        view.release()
        pinned.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            memoryview(pinned)
        device.free()
        with self.assertRaisesRegex(ValueError, "freed"):
            device.copy_from_host(b"x")

    def test_graph_arguments(self):
        graph, other = gilsan.Graph(), gilsan.Graph()
        node = other.add_empty()
        with self.assertRaisesRegex(ValueError, "another graph"):
            graph.after(node)
        with self.assertRaisesRegex(TypeError, "GraphNode"):
            graph.after("node")
        with self.assertRaisesRegex(TypeError, "needs fn"):
            graph.add_host_node()
        with self.assertRaisesRegex(TypeError, "callable"):
            graph.add_host_node(42.0)
        graph.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            graph.add_empty()
        with self.assertRaises(TypeError):
            gilsan.GraphNode()
        other.close()


if __name__ == "__main__":
    unittest.main()

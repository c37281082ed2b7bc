"""host_launch on a stream: fn, args and kwargs are owned until the driver ran them and released exactly
once, with the GIL held, also when the enqueue fails or the context hits a sticky error."""
import sys
import threading
import time
import unittest
import weakref

import gilsan
from support import CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_INVALID_HANDLE, HANG_TIMEOUT, stats_delta


class Callable:
    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))


class Argument:
    pass


class StreamPathLifetime(unittest.TestCase):
    def setUp(self):
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()

    def test_fn_args_kwargs_are_held_until_run_then_released_once(self):
        fn, arg, kwarg = Callable(), Argument(), Argument()
        refs = [sys.getrefcount(o) for o in (fn, arg, kwarg)]
        weak = [weakref.ref(o) for o in (fn, arg, kwarg)]
        before = gilsan._stats()
        blocker = threading.Event()

        self.stream.work(1)
        gilsan.host_launch(self.stream, blocker.wait)  # holds the stream until the checks below are done
        gilsan.host_launch(self.stream, fn, arg, key=kwarg)
        # Pending: the module owns one more reference to each.
        self.assertEqual([sys.getrefcount(o) for o in (fn, arg, kwarg)], [r + 1 for r in refs])
        self.assertEqual(fn.calls, [])
        blocker.set()
        self.stream.synchronize()

        self.assertEqual(fn.calls, [((arg,), {"key": kwarg})])
        fn.calls.clear()
        self.assertEqual([sys.getrefcount(o) for o in (fn, arg, kwarg)], refs)
        delta = stats_delta(before)
        self.assertEqual(delta["host_functions_enqueued"], 2)
        self.assertEqual(delta["host_functions_run"], 2)
        self.assertEqual(delta["payloads_created"], 2)
        self.assertEqual(delta["payloads_released"], 2)
        self.assertEqual(delta["releases_leaked"], 0)
        del fn, arg, kwarg
        self.assertEqual([w() for w in weak], [None, None, None])

    def test_only_references_are_kept_so_a_lambda_is_released_after_its_run(self):
        token = Argument()
        alive = weakref.ref(token)
        ran = []
        gilsan.host_launch(self.stream, lambda t: ran.append(type(t).__name__), token)
        del token
        self.stream.synchronize()
        self.assertEqual(ran, ["Argument"])
        self.assertIsNone(alive())

    def test_a_failed_enqueue_releases_everything_and_runs_nothing(self):
        fn, arg = Callable(), Argument()
        refs = [sys.getrefcount(fn), sys.getrefcount(arg)]
        before = gilsan._stats()
        gilsan._inject_error("cuLaunchHostFunc", CUDA_ERROR_INVALID_HANDLE)
        with self.assertRaises(gilsan.CudaError) as raised:
            gilsan.host_launch(self.stream, fn, arg, key=arg)
        self.assertEqual(raised.exception.call, "cuLaunchHostFunc")
        self.assertEqual(raised.exception.code, CUDA_ERROR_INVALID_HANDLE)
        self.assertEqual([sys.getrefcount(fn), sys.getrefcount(arg)], refs)
        self.stream.synchronize()
        self.assertEqual(fn.calls, [])
        delta = stats_delta(before)
        self.assertEqual((delta["payloads_created"], delta["payloads_released"]), (1, 1))
        self.assertEqual(delta["host_functions_enqueued"], 0)

    def test_a_sticky_error_releases_what_the_driver_will_never_run(self):
        fn, arg = Callable(), Argument()
        alive = weakref.ref(arg)
        before = gilsan._stats()
        self.stream.work(300)
        gilsan.host_launch(self.stream, fn, arg)
        del arg
        # The synchronize reports a sticky error: the context is dead, its host functions never run.
        gilsan._inject_error("cuStreamSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS)
        with self.assertRaises(gilsan.CudaError) as raised:
            self.stream.synchronize()
        self.assertEqual(raised.exception.name, "CUDA_ERROR_ILLEGAL_ADDRESS")
        self.assertIsNone(alive(), "the abandoned host function's arguments were not released")
        # This (simulated) driver is in fact healthy and still calls the trampoline: it must not run fn.
        self.stream.synchronize()
        self.assertEqual(fn.calls, [])
        delta = stats_delta(before)
        self.assertEqual(delta["host_functions_abandoned"], 1)
        self.assertEqual((delta["payloads_created"], delta["payloads_released"]), (1, 1))
        self.assertEqual(delta["host_functions_run"], 0)

    def test_releases_on_a_context_whose_failure_was_raised_are_quiet(self):
        # On the H200 every destroy and free on a failed context returns its sticky error. The first
        # time the program hears of the failure it is raised, a release included; once raised, letting
        # go of the context's objects is quiet (no "Exception ignored" per object for the same fault).
        unraisable = []
        previous_hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
        first, second = gilsan.Context(create=True), gilsan.Context(create=True)
        try:
            with first:
                stream = gilsan.Stream()
                gilsan._inject_error("cuStreamDestroy", CUDA_ERROR_ILLEGAL_ADDRESS)
                with self.assertRaises(gilsan.CudaError, msg="a failure first seen by a release is raised"):
                    stream.close()
            with second:
                stream, closed, dropped, event = gilsan.Stream(), gilsan.Stream(), gilsan.Stream(), gilsan.Event()
                gilsan._inject_error("cuStreamSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS)
                with self.assertRaises(gilsan.CudaError):
                    stream.synchronize()
                gilsan._inject_error("cuStreamDestroy", CUDA_ERROR_ILLEGAL_ADDRESS, count=3)
                gilsan._inject_error("cuEventDestroy", CUDA_ERROR_ILLEGAL_ADDRESS)
                closed.close()
                del dropped, event
                stream.close()
                # Any other error from a release is still raised.
                other = gilsan.Stream()
                gilsan._inject_error("cuStreamDestroy", CUDA_ERROR_INVALID_HANDLE)
                with self.assertRaises(gilsan.CudaError):
                    other.close()
        finally:
            sys.unraisablehook = previous_hook
            first.close()
            second.close()
        self.assertEqual([str(u.exc_value) for u in unraisable], [])

    def test_many_threads_launching_at_once_release_every_payload_once(self):
        before = gilsan._stats()
        counts = [0] * 4

        def bump(index):
            counts[index] += 1

        def launcher_bumping(index):
            stream = gilsan.Stream()
            for _ in range(200):
                gilsan.host_launch(stream, bump, index)
            stream.synchronize()
            stream.close()

        threads = [threading.Thread(target=launcher_bumping, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(counts, [200] * 4)
        delta = stats_delta(before)
        self.assertEqual(delta["host_functions_run"], 800)
        self.assertEqual(delta["payloads_released"], 800)
        self.assertEqual(delta["payloads_live"], 0)

    def test_host_functions_of_one_stream_run_in_order_with_the_work_between_them(self):
        order = []
        for i in range(50):
            if i % 10 == 0:
                self.stream.work(2)
            gilsan.host_launch(self.stream, order.append, i)
        self.stream.synchronize()
        self.assertEqual(order, list(range(50)))


class DeferredReleaseReachesTheMainThread(unittest.TestCase):
    def test_a_release_handed_over_by_a_driver_thread_runs_at_the_next_eval_breaker(self):
        # A graph's user-object destructor runs on a driver thread; the release is a pending call.
        stream = gilsan.Stream()
        token = Argument()
        alive = weakref.ref(token)
        graph = gilsan.Graph()
        graph.add_host_node(lambda t: None, token)
        del token
        graph.close()
        stream.synchronize()
        # No gilsan call in the loop: only the interpreter's pending calls can release it.
        deadline = time.monotonic() + HANG_TIMEOUT
        while alive() is not None and time.monotonic() < deadline:
            time.sleep(0.005)
        self.assertIsNone(alive(), "the pending call never released the payload")
        self.assertGreaterEqual(gilsan._stats()["releases_deferred"], 1)


if __name__ == "__main__":
    unittest.main()

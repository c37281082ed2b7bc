"""Host nodes of graphs (captured by host_launch, or added with Graph.add_host_node): the graph owns the
callable through a CUDA user object; it is never released before the last launch completed, and is
released once the graph and every exec made from it are gone."""
import ctypes
import sys
import unittest
import weakref

import gilsan
from support import CUDA_ERROR_INVALID_VALUE, stats_delta, wait_for_earlier_releases, wait_until


class Counter:
    def __init__(self):
        self.runs = []

    def __call__(self, *args, **kwargs):
        self.runs.append((args, kwargs))


def captured_graph(stream, fn, *args, **kwargs):
    stream.begin_capture()
    stream.work(1)
    gilsan.host_launch(stream, fn, *args, **kwargs)
    return stream.end_capture()


class CapturedHostNode(unittest.TestCase):
    def setUp(self):
        wait_for_earlier_releases()
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()

    def test_replays_run_the_callable_each_time_and_it_lives_until_graph_and_exec_are_gone(self):
        counter = Counter()
        alive = weakref.ref(counter)
        before = gilsan._stats()
        graph = captured_graph(self.stream, counter, "arg", key=1)
        self.assertEqual(graph.python_host_nodes, 1)
        self.assertEqual(counter.runs, [], "a captured host function must not run at capture")
        exec_ = graph.instantiate()
        for _ in range(100):
            exec_.launch(self.stream)
        self.stream.synchronize()
        self.assertEqual(counter.runs, [(("arg",), {"key": 1})] * 100)
        del counter

        graph.close()
        self.stream.synchronize()
        gilsan._release_deferred()
        self.assertIsNotNone(alive(), "released while the exec still holds the graph's user object")
        exec_.launch(self.stream)  # the exec still works without its graph
        self.stream.synchronize()
        self.assertEqual(len(alive().runs), 101)
        exec_.close()
        wait_until(lambda: alive() is None, "the release after the graph and its exec were destroyed")
        delta = stats_delta(before)
        self.assertEqual(delta["graph_host_nodes_added"], 1)
        self.assertEqual(delta["host_functions_run"], 101)
        self.assertEqual((delta["payloads_created"], delta["payloads_released"]), (1, 1))

    def test_closing_the_exec_first_keeps_the_callable_for_the_graph(self):
        counter = Counter()
        alive = weakref.ref(counter)
        graph = captured_graph(self.stream, counter)
        del counter
        graph.instantiate().close()
        self.stream.synchronize()
        gilsan._release_deferred()
        self.assertIsNotNone(alive())
        second = graph.instantiate()
        second.launch(self.stream)
        self.stream.synchronize()
        self.assertEqual(len(alive().runs), 1)
        second.close()
        graph.close()
        wait_until(lambda: alive() is None, "the release")

    def test_launches_in_flight_complete_before_the_release(self):
        counter = Counter()
        alive = weakref.ref(counter)
        graph = captured_graph(self.stream, counter)
        exec_ = graph.instantiate()
        del counter
        self.stream.work(100)
        for _ in range(5):
            exec_.launch(self.stream)
        exec_.close()
        graph.close()
        # Neither exists any more, but five launches are still queued behind the work.
        self.stream.synchronize()
        wait_until(lambda: alive() is None, "the release after the queued launches")
        self.assertGreaterEqual(gilsan._stats()["host_functions_run"], 5)

    def test_a_failed_capture_enqueue_releases_the_callable(self):
        counter = Counter()
        refs = sys.getrefcount(counter)
        self.stream.begin_capture()
        gilsan._inject_error("cuLaunchHostFunc", CUDA_ERROR_INVALID_VALUE)
        with self.assertRaises(gilsan.CudaError):
            gilsan.host_launch(self.stream, counter)
        graph = self.stream.end_capture()
        self.assertEqual(graph.python_host_nodes, 0)
        wait_until(lambda: sys.getrefcount(counter) == refs, "the release of the node that was never added")
        graph.close()

    def test_a_native_function_captured_with_copied_user_data_replays(self):
        native = gilsan.native_test_functions()
        counter = ctypes.c_uint64(0)
        self.stream.begin_capture()
        gilsan.host_launch(self.stream, native["increment_u64"], user_data=ctypes.addressof(counter))
        gilsan.host_launch(self.stream, native["record_u64"], user_data=(0xABCDEF).to_bytes(8, "little"))
        graph = self.stream.end_capture()
        exec_ = graph.instantiate()
        for _ in range(10):
            exec_.launch(self.stream)
        self.stream.synchronize()
        self.assertEqual(counter.value, 10)
        self.assertEqual(gilsan._stats()["native_last_word"], 0xABCDEF)
        before = gilsan._stats()
        exec_.close()
        graph.close()
        wait_until(lambda: stats_delta(before)["payloads_released"] == 1, "the user_data copy's release")


class BuiltGraph(unittest.TestCase):
    def setUp(self):
        wait_for_earlier_releases()
        self.stream = gilsan.Stream()

    def tearDown(self):
        self.stream.synchronize()
        self.stream.close()

    def test_dependencies_order_host_nodes_and_work(self):
        order = []
        with gilsan.Graph() as graph:
            work = graph.add_work(5)
            first = graph.after(work).add_host_node(order.append, "first")
            second = graph.after(first).add_host_node(order.append, "second")
            graph.after(first, second).add_empty()
            self.assertEqual((work.kind, first.kind), ("work", "host"))
            self.assertEqual(graph.python_host_nodes, 2)
            with graph.instantiate() as exec_:
                for _ in range(3):
                    exec_.launch(self.stream)
                self.stream.synchronize()
        self.assertEqual(order, ["first", "second"] * 3)

    def test_add_host_node_passes_every_keyword_to_fn(self):
        counter = Counter()
        graph = gilsan.Graph()
        graph.add_host_node(counter, 1, 2, after="not a dependency", user_data=3)
        exec_ = graph.instantiate()
        exec_.launch(self.stream)
        self.stream.synchronize()
        self.assertEqual(counter.runs, [((1, 2), {"after": "not a dependency", "user_data": 3})])
        exec_.close()
        graph.close()

    def test_failures_while_adding_a_host_node_release_the_callable(self):
        for entry_point in ("cuUserObjectCreate", "cuGraphRetainUserObject", "cuGraphAddHostNode"):
            with self.subTest(entry_point=entry_point):
                counter = Counter()
                alive = weakref.ref(counter)
                before = gilsan._stats()
                graph = gilsan.Graph()
                gilsan._inject_error(entry_point, CUDA_ERROR_INVALID_VALUE)
                with self.assertRaises(gilsan.CudaError) as raised:
                    graph.add_host_node(counter)
                self.assertEqual(raised.exception.call, entry_point)
                del counter
                wait_until(lambda: alive() is None, f"the release after {entry_point} failed")
                self.assertEqual(graph.python_host_nodes, 0)
                graph.close()
                delta = stats_delta(before)
                self.assertEqual((delta["payloads_created"], delta["payloads_released"]), (1, 1))

    def test_a_failed_launch_runs_nothing(self):
        counter = Counter()
        graph = gilsan.Graph()
        graph.add_host_node(counter)
        exec_ = graph.instantiate()
        gilsan._inject_error("cuGraphLaunch", CUDA_ERROR_INVALID_VALUE)
        with self.assertRaises(gilsan.CudaError):
            exec_.launch(self.stream)
        self.stream.synchronize()
        self.assertEqual(counter.runs, [])
        self.assertEqual(exec_.launches, 0)
        exec_.close()
        graph.close()


if __name__ == "__main__":
    unittest.main()

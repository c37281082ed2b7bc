"""Each driver callback thread keeps one Python thread state (harness/pymodule/callback_thread_state.h):
made at the thread's first Python host function, reused by every later one, one per context's thread,
and never touched after the atexit gate closed (a thread that ends: embedded_callback_thread_test.cpp)."""
import threading
import unittest

import gilsan
from support import run_python, stats_delta, wait_until


def run_on_stream(stream, count, fn):
    for _ in range(count):
        gilsan.host_launch(stream, fn)
    stream.synchronize()


class KeptThreadState(unittest.TestCase):
    def test_later_host_functions_reuse_the_state_made_by_the_first(self):
        stream = gilsan.Stream()
        run_on_stream(stream, 1, lambda: None)  # this context's thread has its state from here on
        local = threading.local()
        seen = []

        def count_on_the_same_state():
            # threading.local lives in the thread state's dict: a state made per call would forget it.
            local.calls = getattr(local, "calls", 0) + 1
            seen.append(local.calls)

        before = gilsan._stats()
        run_on_stream(stream, 50, count_on_the_same_state)
        self.assertEqual(seen, list(range(1, 51)))
        self.assertEqual(stats_delta(before)["callback_thread_states_created"], 0)
        stream.close()

    def test_a_graph_host_node_runs_on_the_kept_state_too(self):
        stream = gilsan.Stream()
        run_on_stream(stream, 1, lambda: None)
        ids = []
        stream.begin_capture()
        gilsan.host_launch(stream, lambda: ids.append(threading.get_ident()))
        exec_ = stream.end_capture().instantiate()
        before = gilsan._stats()
        for _ in range(5):
            exec_.launch(stream)
        stream.synchronize()
        self.assertEqual(len(ids), 5)
        self.assertEqual(len(set(ids)), 1)
        self.assertEqual(stats_delta(before)["callback_thread_states_created"], 0)
        stream.close()

    def test_two_contexts_have_two_threads_and_a_state_each(self):
        # The simulated driver's callback threads come from a pool and never end, so a thread that
        # served an earlier test may bring its state along: count only what this test adds.
        other = gilsan.Context(create=True)
        with other:
            far = gilsan.Stream()
        near = gilsan.Stream()
        threads = set()

        def note_thread():
            threads.add(threading.get_native_id())

        def run_both():
            with other:
                run_on_stream(far, 3, note_thread)
            run_on_stream(near, 3, note_thread)

        first = gilsan._stats()
        run_both()
        self.assertEqual(len(threads), 2)
        self.assertLessEqual(stats_delta(first)["callback_thread_states_created"], 2)
        again = gilsan._stats()
        run_both()
        self.assertEqual(len(threads), 2)
        self.assertEqual(stats_delta(again)["callback_thread_states_created"], 0, "each thread reuses its own")
        far.close()
        other.close()
        near.close()

    def test_a_gilstate_ensure_inside_the_callable_reuses_the_kept_state(self):
        import ctypes
        ensure = ctypes.pythonapi.PyGILState_Ensure
        release = ctypes.pythonapi.PyGILState_Release
        ensure.restype = ctypes.c_int
        release.argtypes = [ctypes.c_int]
        stream = gilsan.Stream()
        local = threading.local()
        local_seen = []

        def nested_ensure():
            local.mark = "kept"
            release(ensure())  # must not delete the state the trampoline attached
            local_seen.append(getattr(local, "mark", None))

        run_on_stream(stream, 3, nested_ensure)
        self.assertEqual(local_seen, ["kept"] * 3)
        stream.close()


class FinalizationWithKeptStates(unittest.TestCase):
    def test_exit_with_kept_states_on_two_threads_and_host_functions_pending(self):
        result = run_python("""
import gilsan
other = gilsan.Context(create=True)
with other:
    far = gilsan.Stream()
near = gilsan.Stream()
for stream, context in ((near, gilsan.Context()), (far, other)):
    with context:
        gilsan.host_launch(stream, print, "kept", flush=True)
        stream.synchronize()
assert gilsan._stats()["callback_thread_states_created"] == 2, gilsan._stats()
for stream, context in ((near, gilsan.Context()), (far, other)):
    with context:
        stream.work(800)
        gilsan.host_launch(stream, print, "RAN AFTER EXIT", flush=True)
""")
        self.assertNotIn("Fatal Python error", result.stderr)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "kept\nkept\n")
        self.assertIn("gilsan: skipped 2 Python host function(s)", result.stderr)

    def test_exit_while_a_host_function_runs_on_a_kept_state(self):
        result = run_python("""
import threading, time
import gilsan
stream = gilsan.Stream()
gilsan.host_launch(stream, lambda: None)
stream.synchronize()
inside = threading.Event()
gilsan.host_launch(stream, lambda: (inside.set(), time.sleep(0.2), print("finished", flush=True)))
gilsan.host_launch(stream, print, "second", flush=True)
inside.wait(30)
""")
        self.assertNotIn("Fatal Python error", result.stderr)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "finished\n")


if __name__ == "__main__":
    unittest.main()

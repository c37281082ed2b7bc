"""The interpreter exits while host functions are pending: the trampoline never enters Python after the
module's atexit hook closed the gate, skips and counts them, and the process exits cleanly; the
extension module reports the count on stderr once Py_FinalizeEx is done."""
import unittest

from support import run_python

PRELUDE = """
import threading
import gilsan
stream = gilsan.Stream()
"""


def skipped_line(count):
    return f"gilsan: skipped {count} Python host function(s)"


class Finalization(unittest.TestCase):
    def run_script(self, body):
        result = run_python(PRELUDE + body)
        self.assertNotIn("Fatal Python error", result.stderr)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def test_a_host_function_pending_behind_long_work_is_skipped(self):
        result = self.run_script("""
stream.work(800)
gilsan.host_launch(stream, print, "RAN AFTER EXIT", flush=True)
print("exiting", flush=True)
""")
        self.assertEqual(result.stdout, "exiting\n")
        self.assertIn(skipped_line(1), result.stderr)

    def test_pending_graph_launches_are_skipped_per_host_node(self):
        result = self.run_script("""
stream.begin_capture()
gilsan.host_launch(stream, print, "captured", flush=True)
gilsan.host_launch(stream, print, "captured too", flush=True)
graph = stream.end_capture()
exec_ = graph.instantiate()
stream.work(800)
for _ in range(3):
    exec_.launch(stream)
""")
        self.assertEqual(result.stdout, "")
        self.assertIn(skipped_line(6), result.stderr)

    def test_a_host_function_already_inside_python_finishes_before_finalization(self):
        result = self.run_script("""
import time
started = threading.Event()
def slow():
    started.set()
    time.sleep(0.3)
    print("finished inside the host function", flush=True)
gilsan.host_launch(stream, slow)
started.wait(30)
""")
        self.assertEqual(result.stdout, "finished inside the host function\n")
        self.assertNotIn("gilsan: skipped", result.stderr)

    def test_only_the_host_functions_reached_after_exit_are_skipped(self):
        result = self.run_script("""
gilsan.host_launch(stream, print, "before exit", flush=True)
stream.synchronize()
stream.work(800)
gilsan.host_launch(stream, print, "after exit", flush=True)
gilsan.host_launch(stream, print, "after exit too", flush=True)
""")
        self.assertEqual(result.stdout, "before exit\n")
        self.assertIn(skipped_line(2), result.stderr)

    def test_graphs_and_native_keep_alives_released_during_finalization_do_not_crash(self):
        result = self.run_script("""
import ctypes
graph = gilsan.Graph()
graph.add_host_node(print, "never launched")
exec_ = graph.instantiate()
native = gilsan.native_test_functions()
stream.work(500)
gilsan.host_launch(stream, native["record_u64"], user_data=bytes(8))
""")
        self.assertNotIn("gilsan: skipped", result.stderr)

    def test_no_driver_use_means_no_report(self):
        result = run_python("import gilsan")
        self.assertEqual((result.returncode, result.stderr), (0, ""))


if __name__ == "__main__":
    unittest.main()

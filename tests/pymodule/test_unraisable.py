"""An exception raised by a host function goes to sys.unraisablehook, with a message that names the
path (host_launch, a captured node, a Graph node) and the callable, and the stream carries on."""
import sys
import unittest

import gilsan


class Boom(Exception):
    pass


def raises(message):
    raise Boom(message)


class UnraisableFromHostFunctions(unittest.TestCase):
    def setUp(self):
        self.seen = []
        self.previous_hook = sys.unraisablehook
        sys.unraisablehook = self.seen.append
        self.stream = gilsan.Stream()

    def tearDown(self):
        sys.unraisablehook = self.previous_hook
        self.stream.close()

    def test_stream_host_function(self):
        after = []
        self.stream.work(5)
        gilsan.host_launch(self.stream, raises, "from a stream")
        self.stream.work(5)
        gilsan.host_launch(self.stream, after.append, "still runs")
        self.stream.synchronize()
        self.assertEqual(after, ["still runs"])
        self.assertEqual(len(self.seen), 1)
        report = self.seen[0]
        self.assertIs(report.exc_type, Boom)
        self.assertEqual(str(report.exc_value), "from a stream")
        self.assertIn("gilsan.host_launch", report.err_msg)
        self.assertIs(report.object, raises)
        self.assertIsNotNone(report.exc_traceback)

    def test_graph_host_nodes_report_each_replay(self):
        self.stream.begin_capture()
        gilsan.host_launch(self.stream, raises, "captured")
        captured = self.stream.end_capture()
        built = gilsan.Graph()
        built.add_host_node(raises, "built")
        for graph in (captured, built):
            exec_ = graph.instantiate()
            exec_.launch(self.stream)
            exec_.launch(self.stream)
            self.stream.synchronize()
            exec_.close()
            graph.close()
        messages = [(str(r.exc_value), r.err_msg) for r in self.seen]
        self.assertEqual([m for m, _ in messages], ["captured"] * 2 + ["built"] * 2)
        self.assertTrue(all("gilsan.host_launch (captured)" in e for _, e in messages[:2]), messages)
        self.assertTrue(all("gilsan.Graph.add_host_node" in e for _, e in messages[2:]), messages)

    def test_system_exit_in_a_host_function_does_not_end_the_program(self):
        gilsan.host_launch(self.stream, sys.exit, 3)
        self.stream.synchronize()
        self.assertEqual([r.exc_type for r in self.seen], [SystemExit])


if __name__ == "__main__":
    unittest.main()

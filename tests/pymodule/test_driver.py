"""The driver the module picks from the environment, and the context / device vocabulary on it."""
import os
import threading
import unittest

import gilsan
from support import run_python


class DriverChoice(unittest.TestCase):
    def test_driver_info(self):
        info = gilsan.driver()
        self.assertEqual(info.kind, "sim")
        self.assertIn("requested", info.reason)
        self.assertGreater(info.version, 0)
        self.assertTrue(info.library.endswith(".so"), info.library)
        self.assertTrue(info.profile_source, "the simulated driver names its profile")
        self.assertEqual(info, gilsan.driver(), "the choice is made once per process")

    def test_profile_from_the_environment(self):
        profile = os.path.join(os.environ["GILSAN_SOURCE_DIR"], "profiles", "h200-580.159.04.json")
        env = dict(os.environ, GILSAN_SIM_PROFILE=profile)
        result = run_python("import gilsan; print(gilsan.driver().profile_source)", env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), profile)

    def test_a_bad_driver_request_is_a_clear_error_at_first_use(self):
        env = dict(os.environ, GILSAN_DRIVER="gpu")
        result = run_python("import gilsan\ntry:\n    gilsan.Stream()\nexcept ValueError as e:\n    print(e)", env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("GILSAN_DRIVER: unknown driver 'gpu'", result.stdout)

    def test_a_missing_simulated_driver_is_a_driver_error(self):
        env = dict(os.environ, GILSAN_SIM_LIBRARY="/nonexistent/libgilsan_simcuda.so")
        result = run_python("import gilsan\ntry:\n    gilsan.driver()\nexcept gilsan.DriverError as e:\n    print(e)",
                            env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("/nonexistent/libgilsan_simcuda.so", result.stdout)


class Contexts(unittest.TestCase):
    def test_device_count_and_current_context(self):
        self.assertEqual(gilsan.device_count(), int(os.environ.get("GILSAN_SIM_DEVICES", "1")))
        gilsan.Stream().close()  # any use makes device 0's primary context current
        primary = gilsan.Context()
        self.assertTrue(primary.primary)
        self.assertEqual(gilsan.current_context(), primary.handle)
        created = gilsan.Context(create=True)
        self.assertEqual(gilsan.current_context(), primary.handle, "creating a Context changes nothing")
        with created:
            self.assertEqual(gilsan.current_context(), created.handle)
        self.assertEqual(gilsan.current_context(), primary.handle)
        created.close()
        primary.close()

    def test_a_new_thread_gets_the_primary_context(self):
        seen = []

        def worker():
            stream = gilsan.Stream()
            seen.append(gilsan.current_context())
            stream.close()

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        self.assertEqual(seen, [gilsan.Context().handle])

    def test_context_synchronize_waits_for_every_stream(self):
        streams = [gilsan.Stream(), gilsan.Stream()]
        ran = []
        for index, stream in enumerate(streams):
            stream.work(20)
            gilsan.host_launch(stream, ran.append, index)
        gilsan.context_synchronize()
        self.assertEqual(sorted(ran), [0, 1])
        context = gilsan.Context()
        streams[0].work(5)
        context.synchronize()
        self.assertTrue(all(stream.query() for stream in streams))

    def test_host_functions_of_one_context_share_a_thread_and_two_contexts_do_not(self):
        threads = {}
        other = gilsan.Context(create=True)
        first, second = gilsan.Stream(), gilsan.Stream()
        with other:
            third = gilsan.Stream()
        for name, stream in (("first", first), ("second", second)):
            gilsan.host_launch(stream, lambda n=name: threads.setdefault(n, threading.get_ident()))
        with other:
            gilsan.host_launch(third, lambda: threads.setdefault("other", threading.get_ident()))
        for stream in (first, second, third):
            stream.synchronize()
        self.assertEqual(threads["first"], threads["second"])
        self.assertNotEqual(threads["first"], threads["other"])
        self.assertNotIn(threading.get_ident(), threads.values())
        third.close()
        other.close()


class StreamsAndEvents(unittest.TestCase):
    def test_per_thread_and_legacy_streams(self):
        ran = []
        for stream in (gilsan.Stream.per_thread(), gilsan.Stream.legacy(), gilsan.Stream(non_blocking=False)):
            gilsan.host_launch(stream, ran.append, repr(stream))
            stream.synchronize()
        self.assertEqual(len(ran), 3)

    def test_events_order_two_streams(self):
        producer, consumer = gilsan.Stream(), gilsan.Stream()
        done = gilsan.Event()
        order = []
        producer.work(30)
        gilsan.host_launch(producer, order.append, "producer")
        done.record(producer)
        consumer.wait_event(done)
        gilsan.host_launch(consumer, order.append, "consumer")
        consumer.synchronize()
        done.synchronize()
        self.assertTrue(done.query())
        self.assertEqual(order, ["producer", "consumer"])

    def test_event_timing(self):
        stream = gilsan.Stream()
        start, end = gilsan.Event(timing=True), gilsan.Event(timing=True)
        start.record(stream)
        stream.work(10)
        end.record(stream)
        end.synchronize()
        self.assertGreaterEqual(start.elapsed_ms(end), 0.0)

    def test_memory_round_trip(self):
        stream = gilsan.Stream()
        device = gilsan.DeviceBuffer(64)
        device.copy_from_host(bytes(range(64)))
        back = bytearray(64)
        device.copy_to_host(back)
        self.assertEqual(bytes(back), bytes(range(64)))
        pinned = gilsan.PinnedBuffer(16)
        device.memset(7, stream=stream)
        device.copy_to_host(pinned, stream=stream, offset=48)
        stream.synchronize()
        self.assertEqual(bytes(pinned), bytes([7]) * 16)
        self.assertEqual((len(pinned), pinned.nbytes, device.nbytes), (16, 16, 64))
        memoryview(pinned)[:] = bytes(range(16))
        device.copy_from_host(pinned, stream=stream)
        stream.synchronize()  # a non-blocking stream does not order with the synchronous copy
        device.copy_to_host(back)
        self.assertEqual(bytes(back[:16]), bytes(range(16)))
        device.free()
        pinned.close()


if __name__ == "__main__":
    unittest.main()

"""The Python half of the lock source (checkers/sources/python_lock_tracing.py) with a recorder in
place of the C hooks: the sequence of hook calls each kind of acquire and release makes, the names
locks get, and that Condition, Event and queue.Queue still work on the traced classes.

usage: python3 python_lock_tracing_test.py [PATH_TO_python_lock_tracing.py]
"""
import gc
import importlib.util
import os
import queue
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "checkers", "sources",
                                                                  "python_lock_tracing.py")
spec = importlib.util.spec_from_file_location("_gilsan_lock_tracing", SOURCE)
tracing = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tracing)


class Recorder:
    """Stands for the seven C functions; keeps every call."""

    def __init__(self):
        self.calls = []

    def gilsan_lock_acquire_begin(self, lock, name, blocking):
        self.calls.append(("begin", lock, name, blocking))

    def gilsan_lock_acquired(self, lock, name):
        self.calls.append(("acquired", lock, name))

    def gilsan_lock_acquire_failed(self, lock):
        self.calls.append(("failed", lock))

    def gilsan_lock_released(self, lock):
        self.calls.append(("released", lock))

    def gilsan_lock_destroyed(self, lock):
        self.calls.append(("destroyed", lock))

    def gilsan_lock_notification_wait_begin(self, condition, name):
        self.calls.append(("notification-wait", condition, name))

    def gilsan_lock_notification_wait_end(self):
        self.calls.append(("notification-wait-end", None))

    def of(self, lock):
        """What was said about `lock`, without its id and name: ("begin", 1), ("acquired",)..."""
        lock_id = id(lock)
        return [(call[0],) + tuple(call[3:]) for call in self.calls if call[1] == lock_id]


RECORDER = Recorder()
ORIGINAL_LOCK, ORIGINAL_RLOCK = threading.Lock, threading.RLock
Lock, RLock = tracing.install(RECORDER)  # once for the process: Condition and Queue then use them
THIS_FILE = os.path.basename(__file__)


def line_of(text):
    """The line of this file that contains `text` (for expected lock names)."""
    with open(__file__) as source:
        for number, line in enumerate(source, 1):
            if text in line and "line_of(" not in line:
                return number
    raise AssertionError(text)


class TracedTest(unittest.TestCase):
    def setUp(self):
        # Ids are addresses: a lock of an earlier test may have had the id of one of this test's.
        gc.collect()
        RECORDER.calls.clear()


class LockTest(TracedTest):
    def test_install_replaces_both_names(self):
        self.assertIs(threading.Lock, Lock)
        self.assertIs(threading.RLock, RLock)
        self.assertIsNot(Lock, ORIGINAL_LOCK)

    def test_with_block_is_begin_acquired_released(self):
        lock = threading.Lock()  # the lock of the with block
        with lock:
            self.assertTrue(lock.locked())
        self.assertFalse(lock.locked())
        self.assertEqual(RECORDER.of(lock), [("begin", 1), ("acquired",), ("released",)])
        name = f"Lock at {THIS_FILE}:{line_of('# the lock of the with block')}".encode()
        self.assertIn(("begin", id(lock), name, 1), RECORDER.calls)

    def test_try_lock_of_a_held_lock_fails_without_a_wait(self):
        lock = threading.Lock()
        lock.acquire()
        self.assertFalse(lock.acquire(False))
        self.assertFalse(lock.acquire(blocking=False))
        lock.release()
        self.assertEqual(RECORDER.of(lock), [("begin", 1), ("acquired",), ("begin", 0), ("failed",),
                                             ("begin", 0), ("failed",), ("released",)])

    def test_timed_acquire_that_gives_up_is_a_failed_wait(self):
        lock = threading.Lock()
        holder = threading.Thread(target=lock.acquire)
        holder.start()
        holder.join()
        self.assertFalse(lock.acquire(timeout=0.01))
        lock.release()  # a Lock may be released by another thread than its taker
        self.assertEqual(RECORDER.of(lock), [("begin", 1), ("acquired",), ("begin", 1), ("failed",), ("released",)])

    def test_bad_arguments_fail_like_the_real_lock_and_end_the_acquire(self):
        lock = threading.Lock()
        with self.assertRaises(ValueError):
            lock.acquire(False, 1)
        self.assertEqual(RECORDER.of(lock), [("begin", 0), ("failed",)])

    def test_releasing_an_unlocked_lock_raises_and_says_nothing(self):
        lock = threading.Lock()
        with self.assertRaises(RuntimeError):
            lock.release()
        self.assertEqual(RECORDER.of(lock), [])

    def test_rlock_reports_only_the_outermost_acquire(self):
        lock = threading.RLock()
        with lock:
            with lock:
                self.assertTrue(lock._is_owned())
        self.assertFalse(lock._is_owned())
        self.assertEqual(RECORDER.of(lock), [("begin", 1), ("acquired",), ("released",)])

    def test_rlock_release_by_another_thread_raises(self):
        lock = threading.RLock()
        lock.acquire()
        errors = []

        def release():
            try:
                lock.release()
            except RuntimeError as error:
                errors.append(error)

        other = threading.Thread(target=release)
        other.start()
        other.join()
        lock.release()
        self.assertEqual(len(errors), 1)
        with self.assertRaises(RuntimeError):
            lock.release()

    def test_destroyed_when_collected_and_after_fork_reinit(self):
        lock = threading.Lock()
        lock_id = id(lock)
        lock._at_fork_reinit()
        self.assertIn(("destroyed", lock_id), RECORDER.calls)
        RECORDER.calls.clear()
        del lock
        gc.collect()
        self.assertIn(("destroyed", lock_id), RECORDER.calls)


class StandardLibraryTest(TracedTest):
    def test_condition_wait_lets_go_and_takes_back_its_rlock(self):
        condition = threading.Condition()  # the condition that waits
        self.assertIsInstance(condition._lock, RLock)
        with condition:
            self.assertFalse(condition.wait(0.01))
        self.assertEqual(RECORDER.of(condition._lock),
                         [("begin", 1), ("acquired",), ("released",), ("begin", 1), ("acquired",), ("released",)])
        name = f"RLock of Condition at {THIS_FILE}:{line_of('# the condition that waits')}".encode()
        self.assertIn(("begin", id(condition._lock), name, 1), RECORDER.calls)

    def test_condition_over_a_lock_checks_ownership_with_a_try_lock(self):
        lock = threading.Lock()
        condition = threading.Condition(lock)
        with condition:
            condition.notify()
        self.assertEqual(RECORDER.of(lock), [("begin", 1), ("acquired",), ("begin", 0), ("failed",), ("released",)])

    def test_queue_between_threads(self):
        results = queue.Queue()  # the queue of the producer
        self.assertIsInstance(results.mutex, Lock)
        producer = threading.Thread(target=lambda: [results.put(n) for n in range(100)])
        producer.start()
        self.assertEqual([results.get(timeout=10) for _ in range(100)], list(range(100)))
        producer.join()
        name = f"Lock of Queue at {THIS_FILE}:{line_of('# the queue of the producer')}".encode()
        self.assertIn(("begin", id(results.mutex), name, 1), RECORDER.calls)
        said = RECORDER.of(results.mutex)
        self.assertEqual(said.count(("acquired",)), said.count(("released",)))

    def test_event_and_semaphore_between_threads(self):
        ready = threading.Event()
        slots = threading.BoundedSemaphore(2)
        seen = []

        def worker():
            with slots:
                seen.append(True)
            ready.set()

        workers = [threading.Thread(target=worker) for _ in range(4)]
        for thread in workers:
            thread.start()
        self.assertTrue(ready.wait(10))
        for thread in workers:
            thread.join()
        self.assertEqual(len(seen), 4)


class NotificationTest(TracedTest):
    def test_condition_wait_says_what_it_waits_for_until_it_ends(self):
        ready = threading.Event()  # the event a worker sets
        worker = threading.Thread(target=lambda: (time.sleep(0.05), ready.set()))
        worker.start()
        self.assertTrue(ready.wait(10))
        worker.join()
        name = f"Event at {THIS_FILE}:{line_of('# the event a worker sets')}".encode()
        begin = ("notification-wait", id(ready._cond), name)
        self.assertIn(begin, RECORDER.calls)
        # Ended once, after the wait: the Condition's own try-lock (ownership check) is a lock event.
        after = RECORDER.calls[RECORDER.calls.index(begin) + 1:]
        self.assertIn(("notification-wait-end", None), after)

    def test_each_waiter_of_the_standard_library_is_named_by_its_class(self):
        import concurrent.futures
        cases = {
            b"Queue": lambda: queue.Queue(maxsize=1),  # made here
            b"Future": concurrent.futures.Future,
            b"Barrier": lambda: threading.Barrier(2),
            b"Semaphore": lambda: threading.Semaphore(0),
            b"Condition": threading.Condition,
        }
        for kind, make in cases.items():
            made = make()
            condition = {b"Queue": lambda: made.not_full, b"Future": lambda: made._condition,
                         b"Barrier": lambda: made._cond, b"Semaphore": lambda: made._cond,
                         b"Condition": lambda: made}[kind]()
            self.assertIsInstance(condition, threading.Condition)
            self.assertTrue(condition._gilsan_name.startswith(kind + b" at " + THIS_FILE.encode()),
                            condition._gilsan_name)

    def test_a_condition_made_by_the_tracing_names_its_rlock_after_condition(self):
        condition = threading.Condition()
        self.assertTrue(condition._lock._gilsan_name.startswith(b"RLock of Condition at"), condition._lock._gilsan_name)


class InstallTest(TracedTest):
    def test_hooks_missing_a_function_are_refused(self):
        class Partial:
            gilsan_lock_acquire_begin = gilsan_lock_acquired = print

        with self.assertRaisesRegex(AttributeError, "gilsan_lock_acquire_failed"):
            tracing.install(Partial())
        self.assertIs(threading.Lock, Lock)  # left as it was


if __name__ == "__main__":
    unittest.main()

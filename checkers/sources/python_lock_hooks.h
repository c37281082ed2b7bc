/* The C ABI through which traced Python locks (checkers/sources/python_lock_tracing.py) report
 * what they do. A front end that runs a Sanitizer and/or writes the board exports these seven
 * functions with default visibility; the Python side finds them by name (a ctypes handle of the
 * library, or a builtin module with functions of the same names):
 *   - the scenario child of `gilsan run`: the `gilsan` executable (ENABLE_EXPORTS),
 *     harness/child/scenario_python_locks.cpp;
 *   - under injection: libgilsan_inject.so (docs/sanitizer.md, "Python locks").
 *
 * Plain C so that ctypes can call it. Contract of every function:
 *   - Called with the GIL held, from the thread that does the locking, never from a signal handler.
 *   - Never blocks, never calls back into Python, never raises: a front end without a sanitizer or a
 *     board does nothing.
 *   - `lock` is any id unique among live locks (the Python side passes id(lock)); call
 *     gilsan_lock_destroyed before an id can be reused. `name` is NUL-terminated UTF-8 (e.g.
 *     "Lock at app.py:12"), copied by the callee, may be NULL.
 *
 * The sequence for one acquire: begin, then acquired or acquire_failed; later released. An RLock
 * reports only the outermost acquire and the last release: its re-entry cannot wait.
 */
#ifndef GILSAN_CHECKERS_SOURCES_PYTHON_LOCK_HOOKS_H
#define GILSAN_CHECKERS_SOURCES_PYTHON_LOCK_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

/* About to take `lock`. blocking != 0: the acquire may wait (a blocking or timed acquire); the
 * lock-order edges are drawn now, before the thread can hang, and the board says the thread waits
 * for the lock. blocking == 0: a try-lock, which cannot wait (no edge). */
void gilsan_lock_acquire_begin(unsigned long long lock, const char* name, int blocking);

/* The acquire that began got the lock. */
void gilsan_lock_acquired(unsigned long long lock, const char* name);

/* The acquire that began did not get the lock (a try-lock of a held lock, a timeout, an exception
 * such as KeyboardInterrupt while waiting). */
void gilsan_lock_acquire_failed(unsigned long long lock);

/* About to release `lock` (before the real release, so that another thread's acquire is never
 * reported before it). Python locks may be released by a thread other than the one that took them. */
void gilsan_lock_released(unsigned long long lock);

/* The lock is gone (or was re-initialized after fork): its id may be reused by a new lock. */
void gilsan_lock_destroyed(unsigned long long lock);

/* About to wait for a notification: threading.Condition.wait, which Event, Semaphore, Barrier,
 * queue.Queue and concurrent.futures.Future wait through. `object` is the Condition's id, `name` what
 * it belongs to and where it was made ("Event at app.py:12"). Not a lock: nobody holds it, some thread
 * may notify it (docs/native-locks.md, "Notifications"). Then, once the wait ended however it ended: */
void gilsan_lock_notification_wait_begin(unsigned long long object, const char* name);
void gilsan_lock_notification_wait_end(void);

#ifdef __cplusplus
}
#endif

#endif /* GILSAN_CHECKERS_SOURCES_PYTHON_LOCK_HOOKS_H */

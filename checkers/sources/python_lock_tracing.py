"""Traced threading.Lock, threading.RLock and threading.Condition: Python locks as an event source of
gilsan, and waits for a notification as what they are.

A thread that holds a threading.Lock while it synchronizes a stream whose host function needs that
lock deadlocks (user-lock-inversion). Without this module the sanitizer cannot see the lock, and the
watchdog can only guess who holds it. install() replaces threading.Lock and threading.RLock with
classes that behave the same and report every acquire and release to C functions
(checkers/sources/python_lock_hooks.h); Condition, Event, Semaphore, Barrier and queue.Queue build
their locks through those names, so theirs are traced too. docs/sanitizer.md, "Python locks". It also
replaces threading.Condition with a subclass whose wait() says, for as long as it waits, that the thread
waits for a notification and of what ("Event at app.py:12"): Event, Semaphore, Barrier, queue.Queue and
concurrent.futures.Future all wait through it (docs/native-locks.md, "Notifications").

The same source serves every front end; it only needs an object whose attributes are the five
functions, by their C names:
  - the scenario child of `gilsan run` passes its builtin module `_gilsan_lock_hooks`;
  - another front end (the injected library) passes functions_from_library(ctypes.PyDLL(path)).

Locks made before install() (by the interpreter's start-up, by modules that did
`from threading import Lock` earlier) stay untraced. Nothing here blocks besides the real lock.
"""
import _thread
import sys
import threading

FUNCTION_NAMES = (
    "gilsan_lock_acquire_begin",
    "gilsan_lock_acquired",
    "gilsan_lock_acquire_failed",
    "gilsan_lock_released",
    "gilsan_lock_destroyed",
    "gilsan_lock_notification_wait_begin",
    "gilsan_lock_notification_wait_end",
)

# Modules whose frames only pass a lock on: a lock's name is the first frame outside them (the
# scenario's `queue.Queue()`, not queue.py's `threading.Lock()`).
_LOCK_MAKERS = frozenset({"threading", "queue", "concurrent.futures._base", "concurrent.futures.thread", __name__})


def functions_from_library(library):
    """The five functions of a ctypes library handle, typed.

    Prefer ctypes.PyDLL: the functions are short and never block, and CDLL would release and take the
    GIL back around each of them.
    """
    import ctypes
    import types

    lock, name, flag = ctypes.c_ulonglong, ctypes.c_char_p, ctypes.c_int
    signatures = {
        "gilsan_lock_acquire_begin": (lock, name, flag),
        "gilsan_lock_acquired": (lock, name),
        "gilsan_lock_acquire_failed": (lock,),
        "gilsan_lock_released": (lock,),
        "gilsan_lock_destroyed": (lock,),
        "gilsan_lock_notification_wait_begin": (lock, name),
        "gilsan_lock_notification_wait_end": (),
    }
    functions = {}
    for function_name, argument_types in signatures.items():
        function = getattr(library, function_name)
        function.argtypes = argument_types
        function.restype = None
        functions[function_name] = function
    return types.SimpleNamespace(**functions)


def creation_name(kind, depth=2):
    """'Lock at app.py:12', or 'RLock of Condition at app.py:12' when the standard library made it.

    `depth` is the number of frames between this call and the code that made the lock.
    """
    frame = sys._getframe(depth)
    maker = None
    while frame is not None and frame.f_globals.get("__name__") in _LOCK_MAKERS:
        if frame.f_globals.get("__name__") != __name__:  # the tracing's own Condition is no maker
            maker = frame.f_code
        frame = frame.f_back
    if frame is None:
        return kind.encode()
    site = f"{frame.f_code.co_filename.rpartition('/')[2]}:{frame.f_lineno}"
    if maker is None:
        return f"{kind} at {site}".encode("utf-8", "replace")
    owner = getattr(maker, "co_qualname", maker.co_name).partition(".")[0]
    return f"{kind} of {owner} at {site}".encode("utf-8", "replace")


def awaited_name(depth=2):
    """'Event at app.py:12': what the waiters of a Condition made now wait for (the innermost class of
    the standard library that made it: Event, Queue, Future, Barrier, Semaphore; else Condition) and
    where the program made that. `depth` as creation_name's."""
    frame = sys._getframe(depth)
    owner = None
    while frame is not None and frame.f_globals.get("__name__") in _LOCK_MAKERS:
        if owner is None:
            owner = getattr(frame.f_code, "co_qualname", frame.f_code.co_name).partition(".")[0]
        frame = frame.f_back
    kind = owner or "Condition"
    if frame is None:
        return kind.encode()
    return f"{kind} at {frame.f_code.co_filename.rpartition('/')[2]}:{frame.f_lineno}".encode("utf-8", "replace")


def lock_classes(functions):
    """(Lock, RLock) classes that report to `functions` (see the module's docstring)."""
    begin = functions.gilsan_lock_acquire_begin
    acquired = functions.gilsan_lock_acquired
    failed = functions.gilsan_lock_acquire_failed
    released = functions.gilsan_lock_released
    destroyed = functions.gilsan_lock_destroyed
    allocate_lock = _thread.allocate_lock
    get_ident = _thread.get_ident

    # acquire() is written out in both classes rather than shared: a shared helper would cost a
    # Python call per acquire and add a frame of ours to every stack the sanitizer keeps.
    class Lock:
        """threading.Lock, reporting to gilsan."""

        __slots__ = ("_block", "_gilsan_id", "_gilsan_name", "__weakref__")

        def __init__(self):
            self._block = allocate_lock()
            self._gilsan_id = id(self)
            self._gilsan_name = creation_name("Lock")

        def acquire(self, blocking=True, timeout=-1):
            lock_id = self._gilsan_id
            begin(lock_id, self._gilsan_name, 1 if blocking else 0)
            try:
                got = self._block.acquire(blocking, timeout)
            except BaseException:  # KeyboardInterrupt while waiting, a bad timeout
                failed(lock_id)
                raise
            if got:
                acquired(lock_id, self._gilsan_name)
            else:
                failed(lock_id)
            return got

        __enter__ = acquire

        def release(self):
            if not self._block.locked():
                raise RuntimeError("release unlocked lock")
            released(self._gilsan_id)
            self._block.release()

        def __exit__(self, *exception):  # release(), inlined: `with` is the common case
            if not self._block.locked():
                raise RuntimeError("release unlocked lock")
            released(self._gilsan_id)
            self._block.release()

        def locked(self):
            return self._block.locked()

        def _at_fork_reinit(self):
            # In a forked child the holders are threads that do not exist there: start afresh.
            self._block._at_fork_reinit()
            destroyed(self._gilsan_id)

        def __del__(self):
            destroyed(self._gilsan_id)

        def __repr__(self):
            state = "locked" if self._block.locked() else "unlocked"
            return f"<{state} gilsan-traced Lock '{self._gilsan_name.decode()}' at {self._gilsan_id:#x}>"

    class RLock:
        """threading.RLock, reporting to gilsan: only the outermost acquire and the last release."""

        __slots__ = ("_block", "_owner", "_count", "_gilsan_id", "_gilsan_name", "__weakref__")

        def __init__(self):
            self._block = allocate_lock()
            self._owner = None
            self._count = 0
            self._gilsan_id = id(self)
            self._gilsan_name = creation_name("RLock")

        def acquire(self, blocking=True, timeout=-1):
            me = get_ident()
            if self._owner == me:
                self._count += 1
                return True
            lock_id = self._gilsan_id
            begin(lock_id, self._gilsan_name, 1 if blocking else 0)
            try:
                got = self._block.acquire(blocking, timeout)
            except BaseException:
                failed(lock_id)
                raise
            if got:
                self._owner = me
                self._count = 1
                acquired(lock_id, self._gilsan_name)
            else:
                failed(lock_id)
            return got

        __enter__ = acquire

        def release(self):
            if self._owner != get_ident():
                raise RuntimeError("cannot release un-acquired lock")
            self._count = count = self._count - 1
            if not count:
                self._owner = None
                released(self._gilsan_id)
                self._block.release()

        def __exit__(self, *exception):  # release(), inlined: `with` is the common case
            if self._owner != get_ident():
                raise RuntimeError("cannot release un-acquired lock")
            self._count = count = self._count - 1
            if not count:
                self._owner = None
                released(self._gilsan_id)
                self._block.release()

        # What threading.Condition.wait uses to let go of every level and take them back.
        def _is_owned(self):
            return self._owner == get_ident()

        def _release_save(self):
            if self._count == 0:
                raise RuntimeError("cannot release un-acquired lock")
            state = (self._count, self._owner)
            self._count = 0
            self._owner = None
            released(self._gilsan_id)
            self._block.release()
            return state

        def _acquire_restore(self, state):
            lock_id = self._gilsan_id
            begin(lock_id, self._gilsan_name, 1)
            try:
                self._block.acquire()
            except BaseException:
                failed(lock_id)
                raise
            acquired(lock_id, self._gilsan_name)
            self._count, self._owner = state

        def _at_fork_reinit(self):
            self._block._at_fork_reinit()
            self._owner = None
            self._count = 0
            destroyed(self._gilsan_id)

        def __del__(self):
            destroyed(self._gilsan_id)

        def __repr__(self):
            state = "locked" if self._block.locked() else "unlocked"
            return (f"<{state} gilsan-traced RLock '{self._gilsan_name.decode()}' owner={self._owner!r} "
                    f"count={self._count} at {self._gilsan_id:#x}>")

    return Lock, RLock


def condition_class(functions):
    """A threading.Condition whose wait() reports the wait for a notification to `functions`."""
    begin = functions.gilsan_lock_notification_wait_begin
    end = functions.gilsan_lock_notification_wait_end

    class Condition(threading.Condition):
        """threading.Condition, saying to gilsan what its waiters wait for."""

        def __init__(self, lock=None):
            super().__init__(lock)
            self._gilsan_name = awaited_name()

        def wait(self, timeout=None):
            begin(id(self), self._gilsan_name)
            try:
                return super().wait(timeout)
            finally:
                end()

    return Condition


def install(functions):
    """Replaces threading.Lock, threading.RLock and threading.Condition with classes reporting to
    `functions`.

    Call once, before the program makes the locks that matter. Returns the (Lock, RLock) classes.
    """
    missing = [name for name in FUNCTION_NAMES if not hasattr(functions, name)]
    if missing:
        raise AttributeError(f"lock hooks lack {', '.join(missing)}")
    classes = lock_classes(functions)
    threading.Lock, threading.RLock = classes
    threading.Condition = condition_class(functions)
    return classes

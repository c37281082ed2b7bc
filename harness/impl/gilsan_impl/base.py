"""What a conformance scenario may ask of a host_launch implementation, and the helpers every
implementation shares (device work, a synchronize that keeps the GIL)."""
import ctypes
import os

# What an implementation can do, as scenarios name it in `# gilsan: capabilities = ...`.
CAPABILITIES = {
    "stream-launch": "runs a Python callable on a stream, in stream order (host_launch, launch_host_func)",
    "graph-node": "puts a Python callable into a graph as a host node, run at every launch of the graph",
    "capture": "a launch on a capturing stream becomes a host node of the captured graph",
    "native-function": "runs a native function pointer with its user data, without the GIL",
    "borrowed-stream": "launches on a stream it did not create, given its CUstream handle",
}


def _driver_provides(name):
    """Whether the libcuda.so.1 this process loads resolves `name` (cuGetProcAddress, CUDA 13.0).
    A driver that cannot be loaded at all is not judged here: the implementation reports that itself."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
        get_proc_address = driver.cuGetProcAddress_v2
    except (OSError, AttributeError):
        return True
    function = ctypes.c_void_p()
    status = ctypes.c_int()
    result = get_proc_address(name.encode(), ctypes.byref(function), 13000, ctypes.c_uint64(0), ctypes.byref(status))
    return result == 0 and function.value is not None


def _nothing():
    pass


class Unavailable(Exception):
    """The implementation cannot run here: not installed, or not loadable."""


class Stream:
    """A stream as the scenarios hold it: the implementation's own object and its CUstream handle."""

    def __init__(self, native, handle):
        self.native = native
        self.handle = handle


class Implementation:
    """The interface a conformance scenario uses. A subclass sets `name`, `capabilities` (a subset of
    CAPABILITIES) and, for each capability it lacks, why in `lacks`; it implements what its capabilities
    need. `launch` passes *args/**kwargs to the callable, as the implementation passes its arguments."""

    name = "?"
    capabilities = frozenset()
    lacks = {}
    modules = ()  # what must be importable
    distributions = ()  # the installed packages (PyPI names) whose versions the results name
    # Driver entry points the implementation cannot start without, each with why it needs it. The
    # simulated driver models the documented driver API only: where it lacks one of these, the
    # implementation is unavailable on it (a skip naming the entry point), not failed.
    needs_entry_points = {}

    def require_installed(self):
        import importlib.util

        for module in self.modules:
            try:
                found = importlib.util.find_spec(module)
            except (ImportError, ValueError):
                found = None
            if found is None:
                raise Unavailable(f"{self.name} is not installed (no module named '{module}')")

    def version(self):
        """The implementation's packages and versions, e.g. "cupy-cuda13x 14.2.0"."""
        from importlib import metadata

        found = []
        for distribution in self.distributions:
            try:
                found.append(f"{distribution} {metadata.version(distribution)}")
            except metadata.PackageNotFoundError:
                continue
        return ", ".join(found) or self.name

    def require_driver(self):
        missing = [name for name in self.needs_entry_points if not _driver_provides(name)]
        if missing:
            driver = "the simulated driver" if os.environ.get("GILSAN_DRIVER") == "sim" else "this libcuda.so.1"
            needs = "; ".join(f"{name} ({self.needs_entry_points[name]})" for name in missing)
            raise Unavailable(f"{self.name} needs what {driver} does not model: {needs}")

    # --- streams ---
    def new_stream(self, device=0):
        """A stream the implementation creates (and owns) on `device`, its primary context current."""
        raise NotImplementedError

    def borrow_stream(self, handle):
        """The implementation's view of a CUstream another library created; dropping it leaves the
        stream alone."""
        raise NotImplementedError

    def synchronize(self, stream):
        """The implementation's own synchronize, which is expected to release the GIL while it waits."""
        raise NotImplementedError

    def release_stream(self, stream):
        """Lets go of a stream the implementation created, as its users do (close, or the last reference)."""
        stream.native = None

    # --- host functions ---
    def launch(self, stream, fn, *args, **kwargs):
        """Enqueues fn(*args, **kwargs) on `stream` (capability stream-launch)."""
        raise NotImplementedError

    def launch_native(self, stream, function_address, user_data):
        """Enqueues a native CUhostFn with its user data (capability native-function)."""
        raise NotImplementedError

    def graph_with_host_node(self, stream, fn, *args, **kwargs):
        """A launchable graph whose one node runs fn(*args, **kwargs) (capability graph-node); an
        object that launch_graph and release_graph take."""
        raise NotImplementedError

    def captured_launch(self, stream, fn, *args, **kwargs):
        """A launchable graph captured from `stream` while fn(*args, **kwargs) is launched on it
        (capability capture)."""
        raise NotImplementedError

    def launch_graph(self, graph, stream):
        raise NotImplementedError

    def release_graph(self, graph):
        """Lets go of a graph (and its executable form) as the implementation's users do."""
        raise NotImplementedError

    # --- shared by every implementation: the program around the host functions ---
    def warm_stream(self, device=0):
        """A new stream on which the implementation has already launched (where it can) and completed
        once: what it and gilsan's spin kernel load lazily (entry points, trampolines, the kernel) is
        loaded before a scenario's timing matters. Deadlock scenarios count on device work in front of
        a host function outlasting the launch, which a first-call load can exceed."""
        stream = self.new_stream(device)
        self.busy(stream, 1)
        if "stream-launch" in self.capabilities:
            self.launch(stream, _nothing)
        self.synchronize(stream)
        return stream

    @staticmethod
    def busy(stream, milliseconds):
        """Device work that keeps `stream` busy, on either driver: the gilsan module's spin kernel."""
        import gilsan

        gilsan.Stream.from_handle(stream.handle).work(milliseconds)

    @staticmethod
    def synchronize_holding_gil(stream):
        """cuStreamSynchronize with the GIL held, as a C extension that forgot
        Py_BEGIN_ALLOW_THREADS would."""
        from gilsan_impl.program import Driver

        Driver(hold_gil=True).stream_synchronize(stream.handle)

"""The program around the host functions: driver calls a conformance scenario makes itself, through
ctypes on the libcuda.so.1 the process loads (the simulated driver, or the real one behind gilsan's
forwarding driver), never through the implementation under test.

Each call either releases the GIL while it waits (ctypes.CDLL, what a careful C extension does) or
keeps it (ctypes.PyDLL, one that forgot Py_BEGIN_ALLOW_THREADS): `Driver(hold_gil=True)`. Deadlock
scenarios use the second to make the bug, their twins the first to show the fix.
"""
import ctypes
import threading
import time

# A kernel with the signature of gilsan's spin kernel, so that it also runs on the simulated driver
# (which sleeps for its argument, in nanoseconds); on a GPU it returns at once. PTX 7.0 for sm_52 is
# compiled by every driver gilsan supports for the GPU it has.
EMPTY_KERNEL_PTX = b"""
.version 7.0
.target sm_52
.address_size 64
.visible .entry gilsan_spin_ns(.param .u64 gilsan_spin_ns_param_0)
{
    ret;
}
"""
EMPTY_KERNEL_NAME = b"gilsan_spin_ns"

# A kernel with the signature of gilsan's fill kernel (destination, value, count) that stores `value` at
# `destination` once: given an address no allocation covers, it faults on the GPU and on the simulated
# driver alike, and the context's error becomes sticky (CUDA_ERROR_ILLEGAL_ADDRESS).
STORE_KERNEL_PTX = b"""
.version 7.0
.target sm_52
.address_size 64
.visible .entry gilsan_fill_u32(.param .u64 destination, .param .u32 value, .param .u64 count)
{
    .reg .u64 %rd<2>;
    .reg .u32 %r<2>;
    ld.param.u64 %rd1, [destination];
    ld.param.u32 %r1, [value];
    st.global.u32 [%rd1], %r1;
    ret;
}
"""
STORE_KERNEL_NAME = b"gilsan_fill_u32"
UNMAPPED_ADDRESS = 0x8  # the first page is never mapped on the device
CUDA_ERROR_NOT_READY = 600


class _HostNodeParams(ctypes.Structure):
    """CUDA_HOST_NODE_PARAMS: the function and its argument."""
    _fields_ = [("fn", ctypes.c_void_p), ("userData", ctypes.c_void_p)]


def _native_no_op():
    """libc's free, called with NULL by the driver: a native host function that needs no GIL, so when it
    waits for a running Python host function nothing but the driver can be holding it back."""
    return ctypes.cast(ctypes.CDLL(None).free, ctypes.c_void_p)


def napping_host_function(seconds=0.3):
    """A Python host function that says it started, then sleeps with the GIL released: while it runs,
    the program's main thread can take the GIL and make a driver call that the driver holds back until
    the host function returns, which then needs the GIL back. Returns (started, host_function)."""
    started = threading.Event()

    def naps():
        started.set()
        time.sleep(seconds)

    return started, naps


class DriverError(RuntimeError):
    pass


class Driver:
    """A few driver calls, made with the GIL held or released while they wait."""

    def __init__(self, hold_gil=False):
        loader = ctypes.PyDLL if hold_gil else ctypes.CDLL
        self._cuda = loader("libcuda.so.1")
        self.hold_gil = hold_gil

    def _call(self, name, *args):
        result = getattr(self._cuda, name)(*args)
        if result != 0:
            raise DriverError(f"{name} failed: CUresult {result}")

    def make_context_current(self, device=0):
        """Device `device`'s primary context, made current on this thread if none is. Returns it."""
        self._call("cuInit", 0)
        context = ctypes.c_void_p()
        self._call("cuCtxGetCurrent", ctypes.byref(context))
        if context.value is None:
            handle = ctypes.c_int()
            self._call("cuDeviceGet", ctypes.byref(handle), device)
            self._call("cuDevicePrimaryCtxRetain", ctypes.byref(context), handle)
            self._call("cuCtxSetCurrent", context)
        return context.value

    def primary_context(self, device):
        """Device `device`'s primary context (retained for the rest of the process)."""
        self._call("cuInit", 0)
        handle = ctypes.c_int()
        self._call("cuDeviceGet", ctypes.byref(handle), device)
        context = ctypes.c_void_p()
        self._call("cuDevicePrimaryCtxRetain", ctypes.byref(context), handle)
        return context.value

    # --- waits ---
    def stream_synchronize(self, stream_handle):
        self._call("cuStreamSynchronize", ctypes.c_void_p(stream_handle))

    def context_synchronize(self):
        self._call("cuCtxSynchronize")

    def new_event(self):
        event = ctypes.c_void_p()
        self._call("cuEventCreate", ctypes.byref(event), 2)  # CU_EVENT_DISABLE_TIMING
        return event.value

    def record_event(self, event, stream_handle):
        self._call("cuEventRecord", ctypes.c_void_p(event), ctypes.c_void_p(stream_handle))

    def event_completed(self, event):
        """cuEventQuery: True once the work before the event's record has completed."""
        result = self._cuda.cuEventQuery(ctypes.c_void_p(event))
        if result not in (0, CUDA_ERROR_NOT_READY):
            raise DriverError(f"cuEventQuery failed: CUresult {result}")
        return result == 0

    def event_synchronize(self, event):
        self._call("cuEventSynchronize", ctypes.c_void_p(event))

    def destroy_event(self, event):
        self._call("cuEventDestroy_v2", ctypes.c_void_p(event))

    # --- memory ---
    def allocate(self, nbytes):
        pointer = ctypes.c_uint64()
        self._call("cuMemAlloc_v2", ctypes.byref(pointer), ctypes.c_size_t(nbytes))
        return pointer.value

    def free(self, pointer):
        self._call("cuMemFree_v2", ctypes.c_uint64(pointer))

    def allocate_pinned(self, nbytes):
        """Page-locked host memory (cuMemAllocHost), what an async copy needs to be asynchronous."""
        pointer = ctypes.c_void_p()
        self._call("cuMemAllocHost_v2", ctypes.byref(pointer), ctypes.c_size_t(nbytes))
        return pointer.value

    def free_pinned(self, pointer):
        self._call("cuMemFreeHost", ctypes.c_void_p(pointer))

    def copy_to_device_async(self, device_pointer, host_pointer, nbytes, stream_handle):
        self._call("cuMemcpyHtoDAsync_v2", ctypes.c_uint64(device_pointer), ctypes.c_void_p(host_pointer),
                   ctypes.c_size_t(nbytes), ctypes.c_void_p(stream_handle))

    def memset_async(self, device_pointer, value, nbytes, stream_handle):
        self._call("cuMemsetD8Async", ctypes.c_uint64(device_pointer), ctypes.c_ubyte(value), ctypes.c_size_t(nbytes),
                   ctypes.c_void_p(stream_handle))

    # --- modules and kernels ---
    def load_module(self, image=EMPTY_KERNEL_PTX):
        module = ctypes.c_void_p()
        self._call("cuModuleLoadData", ctypes.byref(module), ctypes.c_char_p(image))
        return module.value

    def unload_module(self, module):
        self._call("cuModuleUnload", ctypes.c_void_p(module))

    def load_library(self, image=EMPTY_KERNEL_PTX):
        """A library (cuLibraryLoadData): its kernels are loaded lazily, at their first use."""
        library = ctypes.c_void_p()
        self._call("cuLibraryLoadData", ctypes.byref(library), ctypes.c_char_p(image), None, None, 0, None, None, 0)
        return library.value

    def kernel_function(self, library, name=EMPTY_KERNEL_NAME):
        """The kernel's function in the current context: its first use, which loads it."""
        kernel = ctypes.c_void_p()
        self._call("cuLibraryGetKernel", ctypes.byref(kernel), ctypes.c_void_p(library), ctypes.c_char_p(name))
        function = ctypes.c_void_p()
        self._call("cuKernelGetFunction", ctypes.byref(function), kernel)
        return function.value

    def library_kernel(self, library, name=EMPTY_KERNEL_NAME):
        """The library's kernel (cuLibraryGetKernel), not yet used in any context: cuLaunchKernel takes
        it as a function, and its first launch in a context is its first use there."""
        kernel = ctypes.c_void_p()
        self._call("cuLibraryGetKernel", ctypes.byref(kernel), ctypes.c_void_p(library), ctypes.c_char_p(name))
        return kernel.value

    def module_function(self, module, name=EMPTY_KERNEL_NAME):
        """The module's function (cuModuleGetFunction); lazy loading loads it at its first launch."""
        function = ctypes.c_void_p()
        self._call("cuModuleGetFunction", ctypes.byref(function), ctypes.c_void_p(module), ctypes.c_char_p(name))
        return function.value

    def launch_kernel(self, function, stream_handle):
        """One block of one thread of the empty kernel (its argument: 0 ns on the simulated driver)."""
        argument = ctypes.c_uint64(0)
        arguments = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(argument), ctypes.c_void_p))
        self._call("cuLaunchKernel", ctypes.c_void_p(function), 1, 1, 1, 1, 1, 1, 0, ctypes.c_void_p(stream_handle),
                   arguments, None)

    def fault(self, stream_handle):
        """Enqueues a store to an unmapped address on the stream: when the device gets there the context
        fails with a sticky error, and every call on it from then on returns that error."""
        function = ctypes.c_void_p()
        self._call("cuModuleGetFunction", ctypes.byref(function), ctypes.c_void_p(self.load_module(STORE_KERNEL_PTX)),
                   ctypes.c_char_p(STORE_KERNEL_NAME))
        destination, value, count = ctypes.c_uint64(UNMAPPED_ADDRESS), ctypes.c_uint32(1), ctypes.c_uint64(1)
        arguments = (ctypes.c_void_p * 3)(*(ctypes.cast(ctypes.pointer(a), ctypes.c_void_p)
                                            for a in (destination, value, count)))
        self._call("cuLaunchKernel", function, 1, 1, 1, 1, 1, 1, 0, ctypes.c_void_p(stream_handle), arguments, None)

    def unload_library(self, library):
        self._call("cuLibraryUnload", ctypes.c_void_p(library))

    # --- native host functions on streams of the program's own ---
    def launch_native_host_function(self, stream_handle):
        """Enqueues the native no-op (free(NULL)) as a host function on the stream."""
        self._call("cuLaunchHostFunc", ctypes.c_void_p(stream_handle), _native_no_op(), None)

    def native_host_node_graph(self):
        """An executable graph of one host node running the native no-op. Returns (graph, executable)."""
        graph = ctypes.c_void_p()
        self._call("cuGraphCreate", ctypes.byref(graph), 0)
        params = _HostNodeParams(_native_no_op().value, None)
        node = ctypes.c_void_p()
        self._call("cuGraphAddHostNode", ctypes.byref(node), graph, None, ctypes.c_size_t(0), ctypes.byref(params))
        executable = ctypes.c_void_p()
        self._call("cuGraphInstantiateWithFlags", ctypes.byref(executable), graph, ctypes.c_ulonglong(0))
        return graph.value, executable.value

    def launch_graph(self, executable, stream_handle):
        self._call("cuGraphLaunch", ctypes.c_void_p(executable), ctypes.c_void_p(stream_handle))

    def destroy_graph(self, graph, executable):
        self._call("cuGraphExecDestroy", ctypes.c_void_p(executable))
        self._call("cuGraphDestroy", ctypes.c_void_p(graph))

    # --- contexts and streams of the program's own ---
    def new_context(self, device=0):
        """A new context (cuCtxCreate), current on this thread until popped."""
        handle = ctypes.c_int()
        self._call("cuDeviceGet", ctypes.byref(handle), device)
        context = ctypes.c_void_p()
        self._call("cuCtxCreate_v4", ctypes.byref(context), None, 0, handle)
        return context.value

    def set_current(self, context):
        self._call("cuCtxSetCurrent", ctypes.c_void_p(context))

    def reset_primary_context(self, device=0):
        """cuDevicePrimaryCtxReset: destroys every allocation and stream of the device's primary context
        (the context stays retained, inactive until the next retain)."""
        handle = ctypes.c_int()
        self._call("cuDeviceGet", ctypes.byref(handle), device)
        self._call("cuDevicePrimaryCtxReset_v2", handle)

    def destroy_context(self, context):
        self._call("cuCtxDestroy_v2", ctypes.c_void_p(context))

    def new_stream(self):
        """A non-blocking stream in the current context."""
        stream = ctypes.c_void_p()
        self._call("cuStreamCreate", ctypes.byref(stream), 1)
        return stream.value

    def destroy_stream(self, stream_handle):
        self._call("cuStreamDestroy_v2", ctypes.c_void_p(stream_handle))

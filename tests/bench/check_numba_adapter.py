"""The numba-cuda adapter (harness/impl/gilsan_impl/numba_cuda_impl.py) reads a stream's handle under
both of numba-cuda's drivers (its ctypes one: a c_void_p; its cuda.bindings one: a CUstream without
`value`) and launches through numba's own add_callback, as numba's users do: under the ctypes driver
the callbacks run; under the cuda.bindings driver numba-cuda 0.30.4's add_callback reads `handle.value`
and raises AttributeError, and the adapter lets that error through (numba's bug is the finding, not
something the adapter hides). numba-cuda is not needed: a fake `numba.cuda` whose Stream.add_callback
does what numba's does with the handle stands in for it.

Usage: check_numba_adapter.py SOURCE_DIR"""
import ctypes
import sys
import types


class FakeCUstream:
    """cuda.bindings.driver.CUstream as far as the adapter sees it: int() gives the address; no `value`."""

    def __init__(self, address):
        self._address = address

    def __int__(self):
        return self._address


class FakeDriver:
    def __init__(self):
        self.calls = []

    def cuStreamAddCallback(self, handle, callback, data, flags):
        assert isinstance(handle, int), f"the driver got {handle!r}, not an int"
        self.calls.append(handle)
        callback(handle, 0, data)  # the callback runs at once: enough to see that it was numba's


class FakeStream:
    """numba-cuda's Stream: add_callback reads `self.handle.value` (0.30.4, driver.py), and the stream
    owns its CUstream."""

    driver = FakeDriver()
    destroyed = []

    def __init__(self, handle):
        self.handle = handle

    def add_callback(self, callback, arg=None):
        handle = self.handle.value
        FakeStream.driver.cuStreamAddCallback(handle, lambda _h, status, _d: callback(self, status, arg), None, 0)

    def synchronize(self):
        pass


def fake_numba(handle_factory):
    cuda = types.ModuleType("numba.cuda")
    cuda.select_device = lambda device: None
    cuda.stream = lambda: FakeStream(handle_factory(0x7000))
    cuda.external_stream = lambda address: FakeStream(handle_factory(address))
    numba = types.ModuleType("numba")
    numba.cuda = cuda
    sys.modules["numba"], sys.modules["numba.cuda"] = numba, cuda


def check_ctypes_driver(adapter_class):
    fake_numba(ctypes.c_void_p)
    FakeStream.driver.calls.clear()
    adapter = adapter_class()
    ran = []
    stream = adapter.new_stream()
    assert stream.handle == 0x7000, stream.handle
    adapter.launch(stream, lambda *args, **kwargs: ran.append((args, kwargs)), 1, key="v")
    adapter.launch(stream, lambda: ran.append("second"))
    borrowed = adapter.borrow_stream(0x9000)
    adapter.launch(borrowed, lambda: ran.append("borrowed"))
    assert ran == [((1,), {"key": "v"}), "second", "borrowed"], ran
    assert FakeStream.driver.calls == [0x7000, 0x7000, 0x9000], FakeStream.driver.calls


def check_bindings_driver(adapter_class):
    fake_numba(FakeCUstream)
    FakeStream.driver.calls.clear()
    adapter = adapter_class()
    stream = adapter.new_stream()
    assert stream.handle == 0x7000, stream.handle  # the handle is read without `value`
    try:
        adapter.launch(stream, lambda: None)
    except AttributeError as error:
        assert "value" in str(error), error
    else:
        raise AssertionError("the adapter hid numba-cuda's add_callback error under its cuda.bindings driver")
    assert FakeStream.driver.calls == [], FakeStream.driver.calls


def main():
    sys.path.insert(0, f"{sys.argv[1]}/harness/impl")
    from gilsan_impl.numba_cuda_impl import NumbaCuda

    check_ctypes_driver(NumbaCuda)
    check_bindings_driver(NumbaCuda)
    print("numba-cuda adapter: reads both drivers' handles; numba's own add_callback error is not hidden")


if __name__ == "__main__":
    main()

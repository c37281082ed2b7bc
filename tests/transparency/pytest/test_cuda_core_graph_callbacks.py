"""Issue 31's file, as a new user wrote it against cuda.core's public graph API: memset, callback and
memcpy nodes of a GraphDefinition over memory from Device.allocate, with a Python callable, a ctypes
function given a raw pointer and one given bytes; each graph launched three times. Plainly, under
`gilsan run --sanitize on` and under the pytest plugin on the real driver, and under `gilsan run` on the
simulated driver (its stream-ordered pools, memset nodes and pointer attributes), all three pass
(ci/gpu-run.sh transparency; tests/transparency/programs/cuda_core_pool_memory_graph.py is the same
contract as a program, for CI's simulated driver)."""
import ctypes

import pytest

cuda_core = pytest.importorskip("cuda.core")
from cuda.core import Device  # noqa: E402
from cuda.core.graph import GraphDefinition  # noqa: E402

SIZE = 64


@pytest.fixture()
def setup():
    device = Device(0)
    device.set_current()
    stream = device.create_stream()
    source, destination = device.allocate(SIZE, stream=stream), device.allocate(SIZE, stream=stream)
    stream.sync()
    yield device, stream, source, destination
    source.close(stream)
    destination.close(stream)
    stream.sync()


def launch_three_times(definition, stream):
    graph = definition.instantiate()
    for _ in range(3):
        graph.launch(stream)
    stream.sync()
    graph.close()


def test_python_callback_between_memset_and_memcpy(setup):
    _, stream, source, destination = setup
    calls = []
    definition = GraphDefinition()
    definition.memset(source, 7, SIZE).callback(lambda: calls.append(1)).memcpy(destination, source, SIZE)
    launch_three_times(definition, stream)
    assert calls == [1, 1, 1]


def test_ctypes_callback_with_raw_pointer_user_data(setup):
    _, stream, source, destination = setup
    counter = ctypes.c_int(0)

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def bump(data):
        ctypes.cast(data, ctypes.POINTER(ctypes.c_int))[0] += 1

    definition = GraphDefinition()
    definition.memset(source, 7, SIZE).callback(bump, user_data=ctypes.addressof(counter)).memcpy(
        destination, source, SIZE)
    launch_three_times(definition, stream)
    assert counter.value == 3


def test_ctypes_callback_with_bytes_user_data(setup):
    _, stream, source, destination = setup
    seen = []

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def read(data):
        seen.append(ctypes.string_at(data, 4))

    definition = GraphDefinition()
    definition.memset(source, 7, SIZE).callback(read, user_data=b"gils").memcpy(destination, source, SIZE)
    launch_three_times(definition, stream)
    assert seen == [b"gils"] * 3

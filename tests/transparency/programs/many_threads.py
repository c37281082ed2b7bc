"""Many threads, each with its own stream, launching ctypes host functions (cuda.bindings) and cuda.core
graphs with Python callbacks, synchronizing as they go."""
import ctypes
import threading

from cuda.bindings import driver
from cuda.core import Device
from cuda.core.graph import GraphDefinition

device = Device(0)
device.set_current()
HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def address_of(function):
    return driver.CUhostFn(ctypes.cast(function, ctypes.c_void_p).value)


native_runs = ctypes.c_long(0)
lock = threading.Lock()
python_runs = []


@HostFn
def bump(data):
    with lock:
        native_runs.value += 1


def worker(index):
    device.set_current()
    stream = device.create_stream()
    handle = driver.CUstream(int(stream.handle))
    definition = GraphDefinition()
    definition.callback(lambda: python_runs.append(index))
    graph = definition.instantiate()
    for _ in range(10):
        error, = driver.cuLaunchHostFunc(handle, address_of(bump), 0)
        assert error == driver.CUresult.CUDA_SUCCESS, error
        graph.launch(stream)
    stream.sync()
    graph.close()
    stream.close()


threads = [threading.Thread(target=worker, args=(index,)) for index in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
assert native_runs.value == 80, native_runs.value
assert sorted(python_runs) == sorted(list(range(8)) * 10), python_runs
print("8 threads ran", native_runs.value, "native and", len(python_runs), "Python host functions")

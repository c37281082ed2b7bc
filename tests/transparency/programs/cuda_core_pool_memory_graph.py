"""cuda.core's graph host-callback contract, as its own tests and issue 31's file use it: memory from
Device.allocate (the device's stream-ordered pool: cuDeviceGetMemPool, cuMemPoolSetAttribute,
cuMemAllocFromPoolAsync, cuMemFreeAsync), a GraphDefinition with memset, Python-callback and memcpy nodes
(cuGraphAddMemsetNode, cuPointerGetAttribute for the copy's memory types), launched three times; the pool's
attributes read through cuda.bindings. What each launch's callback saw and what the copy left are checked."""
import ctypes

from cuda.bindings import driver
from cuda.core import Device
from cuda.core.graph import GraphDefinition

SIZE = 64


def check(result):
    error, *rest = result
    assert error == driver.CUresult.CUDA_SUCCESS, error
    return rest[0] if len(rest) == 1 else rest


device = Device(0)
device.set_current()
stream = device.create_stream()
source, destination = device.allocate(SIZE, stream=stream), device.allocate(SIZE, stream=stream)
stream.sync()

pool = check(driver.cuDeviceGetMemPool(0))
used = check(driver.cuMemPoolGetAttribute(pool, driver.CUmemPool_attribute.CU_MEMPOOL_ATTR_USED_MEM_CURRENT))
assert int(used) >= 2 * SIZE, used
assert check(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                          int(source.handle))) == driver.CUmemorytype.CU_MEMORYTYPE_DEVICE

seen = []
definition = GraphDefinition()
definition.memset(source, 7, SIZE).callback(lambda: seen.append("callback")).memcpy(destination, source, SIZE)
graph = definition.instantiate()
for _ in range(3):
    graph.launch(stream)
stream.sync()
graph.close()
assert seen == ["callback"] * 3, seen

copied = (ctypes.c_ubyte * SIZE)()
check(driver.cuMemcpyDtoH(copied, int(destination.handle), SIZE))
assert bytes(copied) == bytes([7]) * SIZE, bytes(copied)

source.close(stream)
destination.close(stream)
stream.sync()
print("ok")

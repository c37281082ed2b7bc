"""cuda.bindings' driver API: graphs with host nodes made, instantiated (both ways), uploaded, launched,
their parameters set before instantiation, destroyed with launches pending; user objects whose
destructor runs when the last launch holding them is done."""
import ctypes
import threading

from cuda.bindings import driver


def check(result):
    error, *rest = result
    assert error == driver.CUresult.CUDA_SUCCESS, error
    return rest[0] if len(rest) == 1 else rest


check(driver.cuInit(0))
device = check(driver.cuDeviceGet(0))
context = check(driver.cuDevicePrimaryCtxRetain(device))
check(driver.cuCtxSetCurrent(context))
stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))

HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
runs = []
gate = threading.Event()


@HostFn
def record(data):
    runs.append(data)


@HostFn
def wait_for_gate(data):
    gate.wait(10)


def host_params(fn, data):
    params = driver.CUDA_HOST_NODE_PARAMS()
    params.fn = driver.CUhostFn(ctypes.cast(fn, ctypes.c_void_p).value)
    params.userData = data
    return params


graph = check(driver.cuGraphCreate(0))
first = check(driver.cuGraphAddHostNode(graph, None, 0, host_params(record, 1)))
second = check(driver.cuGraphAddHostNode(graph, [first], 1, host_params(record, 2)))
check(driver.cuGraphHostNodeSetParams(second, host_params(record, 3)))  # before instantiation: it counts
exec_flags = check(driver.cuGraphInstantiate(graph, 0))
params = driver.CUDA_GRAPH_INSTANTIATE_PARAMS()
exec_params = check(driver.cuGraphInstantiateWithParams(graph, params))
check(driver.cuGraphUpload(exec_flags, stream))
for executable in (exec_flags, exec_params, exec_flags):
    check(driver.cuGraphLaunch(executable, stream))
check(driver.cuStreamSynchronize(stream))
assert runs == [1, 3] * 3, runs

# Destroyed while a launch is pending behind a host function that waits: the launch still runs.
runs.clear()
blocker = check(driver.cuGraphCreate(0))
check(driver.cuGraphAddHostNode(blocker, None, 0, host_params(wait_for_gate, 0)))
blocker_exec = check(driver.cuGraphInstantiate(blocker, 0))
check(driver.cuGraphLaunch(blocker_exec, stream))
check(driver.cuGraphLaunch(exec_params, stream))
check(driver.cuGraphExecDestroy(exec_params))
check(driver.cuGraphDestroy(graph))
gate.set()
check(driver.cuStreamSynchronize(stream))
assert runs == [1, 3], runs

for executable in (exec_flags, blocker_exec):
    check(driver.cuGraphExecDestroy(executable))
check(driver.cuGraphDestroy(blocker))
check(driver.cuStreamDestroy(stream))
check(driver.cuDevicePrimaryCtxRelease(device))
print("graph host nodes ran in order through", 4, "launches")

"""Streams and events created and destroyed while host functions are pending on them (cuda.bindings and
ctypes host functions); stream callbacks; each host function runs once, in order."""
import ctypes
import threading

from cuda.bindings import driver


def check(result):
    error, *rest = result
    assert error == driver.CUresult.CUDA_SUCCESS, error
    return rest[0] if len(rest) == 1 else rest


check(driver.cuInit(0))
context = check(driver.cuDevicePrimaryCtxRetain(check(driver.cuDeviceGet(0))))
check(driver.cuCtxSetCurrent(context))

HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def address_of(function):
    return driver.CUhostFn(ctypes.cast(function, ctypes.c_void_p).value)


runs = []
gate = threading.Event()


@HostFn
def record(data):
    runs.append(data)


@HostFn
def wait_for_gate(data):
    gate.wait(10)


for round_number in range(3):
    gate.clear()
    stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    event = check(driver.cuEventCreate(0))
    check(driver.cuLaunchHostFunc(stream, address_of(wait_for_gate), 0))
    for index in range(4):
        check(driver.cuLaunchHostFunc(stream, address_of(record), round_number * 10 + index + 1))
    check(driver.cuEventRecord(event, stream))
    check(driver.cuEventDestroy(event))     # pending work behind it
    check(driver.cuStreamDestroy(stream))   # and the stream too: the work still completes
    gate.set()
check(driver.cuCtxSynchronize())
# Each stream's host functions in launch order (the streams' runs may interleave).
for round_number in range(3):
    mine = [run for run in runs if run // 10 == round_number]
    assert mine == [round_number * 10 + index + 1 for index in range(4)], runs
assert len(runs) == 12, runs
print("every pending host function ran once, in its stream's order:", len(runs))

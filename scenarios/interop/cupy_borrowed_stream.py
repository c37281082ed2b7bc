# gilsan: expect = pass
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 60
# gilsan: suppressions = cupy_borrowed_stream.supp
# gilsan: description = host_launch on a CuPy stream, ordered between two CuPy kernels
"""gilsan next to CuPy in one process.

CuPy owns the stream; gilsan borrows it by handle (Stream.from_handle(stream.ptr)) and puts a Python
host function between two CuPy operations. The host function sees the first result (copied to pinned
host memory by CuPy before it) and the final result includes the second operation. CuPy's
synchronize releases the GIL while it waits, so no inversion.
"""
import cupy
import numpy

import gilsan

stream = cupy.cuda.Stream(non_blocking=True)
pinned = cupy.cuda.alloc_pinned_memory(4 * 1024)
host_view = numpy.frombuffer(pinned, dtype=numpy.float32, count=1024)
seen = []

with stream:
    values = cupy.arange(1024, dtype=cupy.float32)
    values *= 2
    values.get(out=host_view, stream=stream, blocking=False)
    gilsan.host_launch(gilsan.Stream.from_handle(stream.ptr), lambda: seen.append(float(host_view[10])))
    values += 1
stream.synchronize()

assert seen == [20.0], seen
assert float(values[10].get()) == 21.0
print("CuPy stream host function saw", seen[0])

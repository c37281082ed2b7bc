# gilsan: expect = pass
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 60
# gilsan: description = the fix of cupy_malloc_in_callback.py: the memory is allocated before the callback is launched
"""The twin of `cupy_malloc_in_callback.py` with the fix applied: the callback calls no CUDA."""
import cupy

stream = cupy.cuda.Stream(non_blocking=True)
pointer = cupy.cuda.runtime.malloc(64)
seen = []
stream.launch_host_func(lambda _: seen.append(pointer), None)
stream.synchronize()
cupy.cuda.runtime.free(pointer)
assert seen == [pointer], seen
print("the callback used memory allocated before it")

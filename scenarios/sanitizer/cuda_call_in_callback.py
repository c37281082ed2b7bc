# gilsan: expect = report:cuda-call-in-host-function
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a Python host function allocates device memory through the gilsan module
"""A host function that calls CUDA.

CUDA forbids host functions to call the driver; the H200's driver refuses cuMemAlloc there with
CUDA_ERROR_NOT_PERMITTED, which the module raises as gilsan.CudaError inside the callback (an
unraisable exception: nobody is there to catch it). The sanitizer reports the call itself, with the
driver's answer, whatever the driver does with it.
"""
import gilsan

errors = []


def allocate():
    try:
        gilsan.DeviceBuffer(64)
    except gilsan.CudaError as error:
        errors.append(error)
        raise


stream = gilsan.Stream()
gilsan.host_launch(stream, allocate)
stream.synchronize()
print("the driver answered:", errors)

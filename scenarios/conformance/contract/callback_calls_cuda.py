# gilsan: expect = report:cuda-call-in-host-function
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = a host function allocates device memory; the sanitizer reports the call, whatever the driver answers
"""A host function that calls CUDA: CUDA forbids it (the H200's driver answers cuMemAlloc there with
CUDA_ERROR_NOT_PERMITTED; other calls hang). The callable allocates through the driver and lets the error
escape (an unraisable exception). Whatever the implementation's trampoline, the sanitizer must see the
call on the driver's callback thread and report it: that is the outcome.

Why it matters: every implementation runs user code on the driver's thread, and users do call CUDA there
(a cupy array, a torch op). gilsan has to catch that for every binding, not only its own.
"""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.new_stream()
driver = Driver()
answers = []


def allocate():
    try:
        driver.free(driver.allocate(64))
        answers.append("allowed")
    except Exception as error:
        answers.append(str(error))
        raise


impl.launch(stream, allocate)
impl.synchronize(stream)
print(f"{impl.name}: the driver answered {answers}")

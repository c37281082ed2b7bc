# gilsan: expect = pass
# gilsan: drivers = sim
# gilsan: description = the driver refuses a host-function launch (run with GILSAN_SIM_FAIL): the caller hears why, and nothing is kept
"""Run with GILSAN_SIM_FAIL=cuLaunchHostFunc=CUDA_ERROR_OUT_OF_MEMORY:after=1:count=1 (the test sets it):
the second of three launches is refused. host_launch must raise gilsan.CudaError naming the call and
the error, must let go of that launch's callable and arguments at once, and the launches around it
must run as usual."""
import weakref

import gilsan


class Argument:
    pass


class Refused:
    def __call__(self, argument):
        ran.append("refused")


stream = gilsan.Stream()
ran = []
gilsan.host_launch(stream, ran.append, "first")
refused, argument = Refused(), Argument()
kept = [weakref.ref(refused), weakref.ref(argument)]
try:
    gilsan.host_launch(stream, refused, argument)
except gilsan.CudaError as error:
    print(f"refused: {error}")
else:
    raise AssertionError("the refused launch did not raise")
del refused, argument
assert all(ref() is None for ref in kept), "the refused launch's callable or argument is still alive"
gilsan.host_launch(stream, ran.append, "third")
stream.synchronize()
assert ran == ["first", "third"], ran
print("the refused launch raised and kept nothing; the others ran")

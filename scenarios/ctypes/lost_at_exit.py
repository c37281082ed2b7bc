# gilsan: expect = report:host-function-lost-at-exit
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the interpreter exits while a ctypes Python host function is still pending behind device work
"""A host function whose callable never runs, and nothing says so.

A ctypes host function (a Python function) is enqueued behind long device work and the scenario ends
without synchronizing. When the interpreter has finished, nothing can run Python any more: the callable
is lost. The sanitizer reports it (host-function-lost-at-exit), naming the callable's implementation and
where it was enqueued. The process ends before the driver reaches the host function (a ctypes thunk run
after finalization would crash it). The fix synchronizes before exit: `synchronized_before_exit.py`.
"""
import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
callback = cuda.HOST_FN(lambda user_data: print("this host function ran"))
cuda.busy(stream, 3000)
cuda.launch_host_func(stream, callback)
print("leaving with a host function pending", flush=True)

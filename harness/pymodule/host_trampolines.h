// The CUhostFn functions the module gives the driver. They run on the driver's callback thread (or, for
// the user-object destructor, whichever driver thread drops the last reference), never with the GIL.
#pragma once

#include <cuda.h>

namespace gilsan::pymodule {

// A Python host function enqueued on a stream (payload: HostPayload, PythonCall). Runs it once with the
// GIL taken by PyGILState_Ensure, then releases the payload. Once Python is gone it skips the call,
// counts the skip and leaks the references on purpose, without touching the interpreter.
void CUDA_CB stream_python_trampoline(void* payload);

// A Python host node of a graph (captured or built). Runs on every replay; the payload belongs to the
// graph's user object, which releases it.
void CUDA_CB graph_python_trampoline(void* payload);

// Enqueued right behind a native host function on a stream: its keep-alive (ctypes object, user_data
// copy) may go now. Hands the Python part to release_later; never takes the GIL.
void CUDA_CB native_release_marker(void* payload);

// A CUDA user object's destructor: the last graph or exec holding the payload is gone and its launches
// completed. Runs on a driver thread, so it hands the release over instead of taking the GIL.
void CUDA_CB user_object_destructor(void* payload);

}  // namespace gilsan::pymodule

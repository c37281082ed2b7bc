// What a thread waits for, read from its symbolized native stack. Used for threads that do not write
// the board (CuPy's `with gil` trampoline, ctypes callbacks, the real driver's threads) and to confirm
// threads that do. Every fact from here is reported as inferred.
#pragma once

#include <string>
#include <vector>

#include "harness/watchdog/snapshot.h"

namespace gilsan::watchdog {

struct NativeWait {
  enum class Kind {
    None,              // nothing recognizable (running, or no stack)
    Gil,               // taking the GIL: take_gil, PyEval_RestoreThread, PyGILState_Ensure, drop_gil...
    PythonLock,        // a Python lock: lock_PyThread_acquire_lock, PyThread_acquire_lock_timed...
    NativeLock,        // a native mutex: pthread_mutex_lock, __lll_lock_wait...
    DriverCall,        // inside a CUDA driver or runtime entry point (cu*/cuda*)
    FinalizationHang,  // parked forever because the interpreter is finalizing (PyThread_hang_thread)
    OtherWait,         // a condition variable, semaphore, poll... with no further clue
  };
  Kind kind = Kind::None;
  std::string frame;  // the frame that told us (a driver entry point's name for DriverCall)
};

// Scans from the innermost frame outwards, skipping libc's waiting primitives and unnamed frames;
// the first frame that names a GIL, Python-lock, finalization or driver function decides. Otherwise
// the innermost primitive says whether it is a mutex (NativeLock) or another wait.
NativeWait infer_native_wait(const std::vector<NativeFrame>& frames);

// The stack shows the interpreter finalizing (Py_FinalizeEx, _Py_Finalize, Py_Exit...).
bool frames_show_finalization(const std::vector<NativeFrame>& frames);

// The stack runs in driver code (libcuda or the simulated driver) and was not started by the program
// (main) or by Python (a threading.Thread): a driver thread, not a program's thread calling the driver.
bool frames_show_driver_thread(const std::vector<NativeFrame>& frames);

// "cuStreamSynchronize_v2" / "_ptsz" / "_ptds" forms -> "cuStreamSynchronize".
std::string normalize_entry_point(const std::string& name);

const char* to_string(NativeWait::Kind kind);

}  // namespace gilsan::watchdog

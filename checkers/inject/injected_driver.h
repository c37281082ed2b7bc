// The driver entry points the injection library calls itself: to enqueue marker host functions,
// to ask whether a stream is capturing, and to run its start-up self-test. In a real process they
// come from the libcuda.so.1 that loaded the library; a test fills them from the simulated driver,
// through a fake CUPTI layer that calls the handler around each of them.
#pragma once

#include <cuda.h>

#include <string>

namespace gilsan::checkers::inject {

struct InjectedDriver {
  decltype(&::cuLaunchHostFunc) launch_host_func = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamIsCapturing) stream_is_capturing = nullptr;
  decltype(&::cuCtxPushCurrent) context_push = nullptr;
  decltype(&::cuCtxPopCurrent) context_pop = nullptr;
  decltype(&::cuThreadExchangeStreamCaptureMode) exchange_capture_mode = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;

  bool complete() const;
};

// Resolves every entry point from the libcuda.so.1 already loaded in this process (dlopen with
// RTLD_NOLOAD, then cuGetProcAddress_v2 at CUDA 12.0 semantics: legacy default stream). Returns ""
// or one line naming what is missing.
std::string resolve_loaded_driver(InjectedDriver& driver);

}  // namespace gilsan::checkers::inject

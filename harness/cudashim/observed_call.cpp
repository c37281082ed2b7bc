#include "harness/cudashim/observed_call.h"

#include <cstring>

#include "harness/cudashim/real_driver.h"

namespace gilsan::cudashim {
namespace {

using StreamGetCtx = CUresult (*)(CUstream, CUcontext*);
using CtxGetCurrent = CUresult (*)(CUcontext*);

// Asked of the real driver directly: a call through our own exports would be watched again.
CUcontext context_of(const CallTarget& target) {
  static const auto stream_get_ctx = reinterpret_cast<StreamGetCtx>(real_function("cuStreamGetCtx"));
  static const auto ctx_get_current = reinterpret_cast<CtxGetCurrent>(real_function("cuCtxGetCurrent"));
  if (target.has_context && target.context != nullptr) return target.context;
  CUcontext context = nullptr;
  if (target.has_stream && stream_get_ctx != nullptr && stream_get_ctx(target.stream, &context) == CUDA_SUCCESS)
    return context;
  context = nullptr;
  // On a driver callback thread this is refused (NOT_PERMITTED): the context stays unknown there.
  if (ctx_get_current != nullptr && ctx_get_current(&context) == CUDA_SUCCESS) return context;
  return nullptr;
}

}  // namespace

CallScope::CallScope(const char* entry_point, const CallTarget& target)
    : call_{entry_point, context_of(target), target.stream, target.event} {
  driverhooks::api_enter(call_);
}

bool is_watched_entry_point(const char* entry_point) {
  for (auto list : {host_function_entry_points(), graph_entry_points(), default_stream_entry_points()}) {
    for (const WrappedEntryPoint& entry : list) {
      if (std::strcmp(entry.entry_point, entry_point) == 0) return true;
    }
  }
  return false;
}

const WrappedEntryPoint* wrapped_entry_point(const char* symbol) {
  // Hand-written wrappers first: they also watch what the generic ones would.
  for (auto list : {host_function_entry_points(), graph_entry_points(), proc_address_entry_points(),
                    per_thread_entry_points(), default_stream_entry_points()}) {
    for (const WrappedEntryPoint& entry : list) {
      if (std::strcmp(entry.symbol, symbol) == 0) return &entry;
    }
  }
  return nullptr;
}

}  // namespace gilsan::cudashim

// cuGetProcAddress: how the CUDA runtime, cuda.bindings and most bindings find every entry point. The
// real driver answers (it knows which version of each function the caller asked for); an answer that is
// a function we watch is swapped for our wrapper of it, so calls made through the returned pointers are
// seen like calls made through our exports.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "harness/cudashim/forwarding_table.h"
#include "harness/cudashim/observed_call.h"
#include "harness/cudashim/real_driver.h"

namespace gilsan::cudashim {
namespace {

// GILSAN_CUDASHIM_TRACE=1: at exit, one line per entry point we watch that cuGetProcAddress answered
// with a function that is none of the real driver's exports (so it went unwatched). A driver that hands
// out internal functions shows up here.
struct UnmatchedAnswers {
  std::mutex mutex;
  std::set<std::string> names;
  static void print() {
    for (const std::string& name : instance().names)
      std::fprintf(stderr, "gilsan: forwarding libcuda.so.1: cuGetProcAddress answered %s with an unwatched function\n",
                   name.c_str());
  }
  static UnmatchedAnswers& instance() {
    static auto* const answers = new UnmatchedAnswers();
    return *answers;
  }
};

bool tracing() {
  static const bool on = [] {
    const char* value = std::getenv("GILSAN_CUDASHIM_TRACE");
    return value != nullptr && *value != '\0' && *value != '0';
  }();
  return on;
}

void* answer(const char* symbol, void* function, int cuda_version, cuuint64_t flags) {
  void* wrapper = wrapper_for_real_function(function);
  if (wrapper != function || !tracing() || symbol == nullptr || !is_watched_entry_point(symbol)) return wrapper;
  UnmatchedAnswers& unmatched = UnmatchedAnswers::instance();
  std::lock_guard lock(unmatched.mutex);
  if (unmatched.names.empty()) std::atexit(&UnmatchedAnswers::print);
  unmatched.names.insert(std::string(symbol) + " (version " + std::to_string(cuda_version) + ", flags " +
                         std::to_string(flags) + ")");
  return wrapper;
}

CUresult get_proc_address_v2(const char* symbol, void** function, int cuda_version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
  static const auto real = real_or_unavailable<decltype(&::cuGetProcAddress)>("cuGetProcAddress_v2");
  const CUresult result = real(symbol, function, cuda_version, flags, status);
  if (result == CUDA_SUCCESS && function != nullptr && *function != nullptr)
    *function = answer(symbol, *function, cuda_version, flags);
  return result;
}

// The CUDA 11.3 form, without the query result.
using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);

CUresult get_proc_address_v1(const char* symbol, void** function, int cuda_version, cuuint64_t flags) {
  static const auto real = real_or_unavailable<GetProcAddressV1>("cuGetProcAddress");
  const CUresult result = real(symbol, function, cuda_version, flags);
  if (result == CUDA_SUCCESS && function != nullptr && *function != nullptr)
    *function = answer(symbol, *function, cuda_version, flags);
  return result;
}

}  // namespace

std::span<const WrappedEntryPoint> proc_address_entry_points() {
  static const WrappedEntryPoint entries[] = {
      {"cuGetProcAddress", reinterpret_cast<void*>(&get_proc_address_v1), nullptr, "cuGetProcAddress", nullptr},
      {"cuGetProcAddress_v2", reinterpret_cast<void*>(&get_proc_address_v2), nullptr, "cuGetProcAddress", nullptr},
  };
  return entries;
}

}  // namespace gilsan::cudashim

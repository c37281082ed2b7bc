// Whether the calling thread holds the GIL, for a source that does not control the interpreter
// (the injection library, the sim source in a Python process): PyGILState_Check, found with
// dlsym(RTLD_DEFAULT), asked only while Py_IsInitialized says an interpreter runs. Links nothing of
// Python, so a process without an interpreter pays one failed lookup now and then.
#pragma once

#include <atomic>
#include <optional>

namespace gilsan::checkers {

class PythonGilProbe {
 public:
  // nullopt: no interpreter is loaded or initialized, so the GIL cannot be held. `may_look_up` false:
  // never calls the loader (dlsym takes its lock), so nullopt until an earlier question found Python.
  std::optional<bool> holds_gil(bool may_look_up = true);

 private:
  using IntFunction = int (*)();
  bool resolve();

  std::atomic<IntFunction> is_initialized_{nullptr};
  std::atomic<IntFunction> gil_check_{nullptr};
  // Lookups that failed since the last retry: libpython may be dlopen'd after the source started,
  // so the lookup is retried, but only every kRetryEvery questions.
  std::atomic<unsigned> misses_{0};
  static constexpr unsigned kRetryEvery = 4096;
};

}  // namespace gilsan::checkers

#include "checkers/sources/python_gil_probe.h"

#include <dlfcn.h>

namespace gilsan::checkers {

bool PythonGilProbe::resolve() {
  auto* is_initialized = reinterpret_cast<IntFunction>(::dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  auto* gil_check = reinterpret_cast<IntFunction>(::dlsym(RTLD_DEFAULT, "PyGILState_Check"));
  if (is_initialized == nullptr || gil_check == nullptr) return false;
  gil_check_.store(gil_check, std::memory_order_relaxed);
  is_initialized_.store(is_initialized, std::memory_order_release);
  return true;
}

std::optional<bool> PythonGilProbe::holds_gil(bool may_look_up) {
  IntFunction is_initialized = is_initialized_.load(std::memory_order_acquire);
  if (is_initialized == nullptr) {
    if (!may_look_up || misses_.fetch_add(1, std::memory_order_relaxed) % kRetryEvery != 0 || !resolve()) {
      return std::nullopt;
    }
    is_initialized = is_initialized_.load(std::memory_order_acquire);
  }
  if (is_initialized() == 0) return std::nullopt;
  return gil_check_.load(std::memory_order_relaxed)() != 0;
}

}  // namespace gilsan::checkers

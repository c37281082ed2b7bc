#include "harness/pymodule/native_test_functions.h"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "harness/pymodule/module_stats.h"
#include "harness/pymodule/python_ref.h"

using gilsan::pymodule::stats;

extern "C" __attribute__((visibility("default"))) void gilsan_native_increment_u64(void* user_data) {
  std::atomic_ref<std::uint64_t>(*static_cast<std::uint64_t*>(user_data)).fetch_add(1);
  stats().native_test_calls.fetch_add(1);
}

extern "C" __attribute__((visibility("default"))) void gilsan_native_record_u64(void* user_data) {
  std::uint64_t word = 0;
  std::memcpy(&word, user_data, sizeof word);
  stats().native_last_word.store(word);
  stats().native_test_calls.fetch_add(1);
}

namespace gilsan::pymodule {

PyObject* native_test_functions(PyObject*, PyObject*) {
  PyRef functions(PyDict_New());
  if (!functions) return nullptr;
  const std::pair<const char*, void (*)(void*)> entries[] = {
      {"increment_u64", &gilsan_native_increment_u64},
      {"record_u64", &gilsan_native_record_u64},
  };
  for (const auto& [name, function] : entries) {
    PyRef address(PyLong_FromVoidPtr(reinterpret_cast<void*>(function)));
    if (!address || PyDict_SetItemString(functions.get(), name, address.get()) != 0) return nullptr;
  }
  return functions.release();
}

}  // namespace gilsan::pymodule

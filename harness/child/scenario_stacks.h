// ScenarioStacks: the stacks the scenario child's sanitizer keeps (SanitizerConfig::capture_stack,
// capture_enqueue_stack and symbolize_stack). A thread that holds the GIL gets its Python stack, from
// the module's writer (set_python_stack); one inside a call that released it, its Python frames read
// as faulthandler reads them; any other, its native stack, named only when a report keeps it.
#pragma once

#ifdef GILSAN_WITH_SANITIZER
#include <atomic>
#include <cstddef>
#include <memory>

#include "checkers/core/handles.h"
#include "checkers/sources/python_gil_probe.h"
#include "checkers/sources/sanitizer_hooks.h"

namespace gilsan {

class ScenarioStacks {
 public:
  explicit ScenarioStacks(checkers::PythonGilProbe& gil_probe) : gil_probe_(gil_probe) {}

  // The module's Python stack writer, once it is loaded.
  void set_python_stack(GilsanPythonStackFunction write_stack) { python_stack_.store(write_stack); }

  // For a new edge or report; {} for a thread other than the caller.
  checkers::Stack capture(checkers::ThreadId thread) const;
  // Once per Python launch: the Python stack of a calling thread that holds the GIL, the same object
  // as the thread's last answer when it reads the same (a launch loop); null otherwise.
  std::shared_ptr<const checkers::Stack> capture_enqueue(checkers::ThreadId thread) const;
  // Names a kept stack's raw frames and drops those of the sanitizer and of this front end.
  static void symbolize(checkers::Stack& stack);

 private:
  // The Python stack of a calling thread that holds the GIL, as the module writes it; false otherwise.
  bool write_python_stack(char* text, std::size_t size) const;

  checkers::PythonGilProbe& gil_probe_;
  std::atomic<GilsanPythonStackFunction> python_stack_{nullptr};
};

}  // namespace gilsan
#endif

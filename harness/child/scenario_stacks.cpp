#include "harness/child/scenario_stacks.h"

#ifdef GILSAN_WITH_SANITIZER
#include <string>
#include <string_view>
#include <vector>

#include "checkers/core/per_thread.h"
#include "checkers/sources/native_stack.h"
#include "checkers/sources/python_stack_reader.h"
#include "checkers/sources/thread_identity.h"

namespace gilsan {
namespace {

using checkers::Stack;

// Deep enough to show the scenario's code above the module's and the driver's frames.
constexpr int kStackDepth = 16;

// A thread's last answer of capture_enqueue (a PerThread: per_thread.h says why not a thread_local).
struct LastEnqueueStack {
  std::string text;
  std::shared_ptr<const Stack> stack;
};

// The frames of a Python stack's text, one per line.
Stack frames_of(std::string_view text) {
  Stack stack;
  while (!text.empty()) {
    const auto end = text.find('\n');
    stack.emplace_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return stack;
}

}  // namespace

bool ScenarioStacks::write_python_stack(char* text, std::size_t size) const {
  const GilsanPythonStackFunction write_stack = python_stack_.load();
  return write_stack != nullptr && gil_probe_.holds_gil().value_or(false) &&
         write_stack(text, size, kStackDepth) > 0;
}

Stack ScenarioStacks::capture(checkers::ThreadId thread) const {
  if (thread != checkers::current_thread_id()) return {};
  if (char text[4096]; write_python_stack(text, sizeof(text))) return frames_of(text);
  // Inside a call that released the GIL (ctypes, CuPy): the thread's Python frames, read as
  // faulthandler reads them, say more than the interpreter's native ones.
  if (Stack python = checkers::read_python_stack_without_gil(kStackDepth); !python.empty()) return python;
  return checkers::capture_native_stack(kStackDepth);
}

std::shared_ptr<const Stack> ScenarioStacks::capture_enqueue(checkers::ThreadId thread) const {
  char text[4096];
  if (thread != checkers::current_thread_id() || !write_python_stack(text, sizeof(text))) return nullptr;
  // The module writes the same text for the same call site from its own cache: comparing the text
  // is cheaper than splitting and allocating the frames again.
  LastEnqueueStack& last = checkers::PerThread<LastEnqueueStack>::get();
  if (last.stack == nullptr || last.text != text) {
    last.text = text;
    last.stack = std::make_shared<const Stack>(frames_of(text));
  }
  return last.stack;
}

void ScenarioStacks::symbolize(Stack& stack) {
  // The simulated driver's observer plumbing (gilsan::sim::) too; its entry point itself stays.
  static const std::vector<std::string_view> own_frames = {"gilsan::checkers::", "std::", "gilsan::(anonymous namespace)::",
                                                           "gilsan::sim::"};
  checkers::symbolize_native_stack(stack, own_frames);
}

}  // namespace gilsan
#endif

// How a stack frame is shown to a person, one rule for every report (the watchdog's, the sanitizer's):
// C++ template arguments elided ("std::vector<...>::push_back"), and gilsan's own frames recognised, so
// that a report can leave them out and begin at the user's line. Machine-read forms (JSON) keep frames
// as they were captured.
#pragma once

#include <string>
#include <string_view>

namespace gilsan::text {

// `name` with the arguments of every template (and of the function's parameter list's templates)
// replaced by "...": "std::function<void ()>::operator()() const" -> "std::function<...>::operator()() const".
// Operators whose name holds '<' or '>' ("operator<<", "operator->") are kept as they are.
inline std::string elide_template_arguments(std::string_view name) {
  std::string shown;
  shown.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (name.substr(i).starts_with("operator")) {
      // The operator's own symbol: "operator<<=", "operator->*", "operator<", "operator()".
      std::size_t end = i + 8;
      while (end < name.size() && std::string_view("<>=-*!").find(name[end]) != std::string_view::npos) ++end;
      shown.append(name.substr(i, end - i));
      i = end - 1;
      continue;
    }
    if (c != '<') {
      shown += c;
      continue;
    }
    int depth = 0;
    std::size_t end = i;
    for (; end < name.size(); ++end) {
      if (name[end] == '<') ++depth;
      if (name[end] == '>' && --depth == 0) break;
    }
    if (end == name.size()) {  // unbalanced: show the rest as it is
      shown.append(name.substr(i));
      break;
    }
    shown += "<...>";
    i = end;
  }
  return shown;
}

// Whether a native frame is gilsan's own: a function of namespace gilsan (or a standard-library frame
// instantiated for one of its types), or code of the gilsan executable or one of its libraries
// (libgilsan_*.so, the simulated driver when it stands in as libcuda.so.1 keeps its gilsan:: names).
inline bool is_gilsan_native_frame(std::string_view symbol, std::string_view module) {
  const std::size_t slash = module.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? module : module.substr(slash + 1);
  return symbol.find("gilsan::") != std::string_view::npos || file == "gilsan" || file.starts_with("libgilsan_");
}

// Whether a Python frame is gilsan's own: its lock tracing, or the gilsan package's modules.
inline bool is_gilsan_python_frame(std::string_view file) {
  return file.ends_with("python_lock_tracing.py") || file.find("/gilsan/_") != std::string_view::npos;
}

// The module of a frame line ("SYMBOL+0x1a (MODULE) at FILE:LINE"), as [begin, end) offsets; none for a
// Python frame ("FILE:LINE FUNCTION").
inline bool frame_text_module(std::string_view frame, std::size_t& open, std::size_t& close) {
  const std::size_t at = frame.find(") at ");
  close = at != std::string_view::npos ? at : (frame.ends_with(")") ? frame.size() - 1 : std::string_view::npos);
  if (close == std::string_view::npos) return false;
  open = frame.rfind(" (", close);
  return open != std::string_view::npos;
}

// A frame line for a person: a native frame's template arguments elided; a Python frame as it is
// ("x.py:14 <module>" keeps its function's name).
inline std::string display_frame_text(std::string_view frame) {
  std::size_t open = 0, close = 0;
  return frame_text_module(frame, open, close) ? elide_template_arguments(frame) : std::string(frame);
}

// A frame as the sanitizer's stacks hold it, one line: native "SYMBOL+0x1a (MODULE) at FILE:LINE" (or
// "[inlined] SYMBOL (MODULE) at ...", "0x7f.. (MODULE)"), Python "FILE:LINE FUNCTION". Whether it is
// gilsan's own, by the rules above.
inline bool is_gilsan_frame_text(std::string_view frame) {
  std::size_t open = 0, close = 0;
  if (!frame_text_module(frame, open, close)) return is_gilsan_python_frame(frame.substr(0, frame.find(':')));
  return is_gilsan_native_frame(frame.substr(0, open), frame.substr(open + 2, close - open - 2));
}

}  // namespace gilsan::text

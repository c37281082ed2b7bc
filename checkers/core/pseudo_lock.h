// The things a thread can hold or wait for in the lock-order model (docs/sanitizer.md, "The
// model"). None of them is a real mutex in the process; each stands for a reason a thread can be
// made to wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

// The kinds are the one table of checkers/core/pseudo_lock_kinds.inc (the watchdog's node kinds come
// from it too).
enum class PseudoLockKind {
#define GILSAN_PSEUDO_LOCK_KIND(enumerator, core_name, graph_name, description) enumerator,
#include "checkers/core/pseudo_lock_kinds.inc"
#undef GILSAN_PSEUDO_LOCK_KIND
};

std::string_view to_string(PseudoLockKind kind);  // the table's core_name: "gil", "stream-completion", ...

struct PseudoLock {
  PseudoLockKind kind = PseudoLockKind::gil;
  Handle context =
      0;  // callback_thread, context_completion, host_function_lock; see stream_completion
  Handle stream = 0;       // stream_completion
  std::uint64_t lock = 0;  // user_lock
  std::string name;        // user_lock, for people; not part of the identity

  static PseudoLock gil();
  static PseudoLock callback_thread(Handle context);
  // The NULL, legacy (0x1) and per-thread (0x2) stream handles mean a different stream in each
  // context, so they are told apart by context; any other stream handle is unique in the process.
  static PseudoLock stream_completion(Handle context, Handle stream);
  static PseudoLock context_completion(Handle context);
  static PseudoLock host_function_lock(Handle context);
  static PseudoLock user_lock(std::uint64_t id, std::string_view name);

  bool is_completion() const {
    return kind == PseudoLockKind::stream_completion || kind == PseudoLockKind::context_completion;
  }
  // For people: "the GIL", "completion of stream 0x10", "lock 'jobs' (0x7f..)".
  std::string label() const;

  friend bool operator==(const PseudoLock& a, const PseudoLock& b) {
    return a.kind == b.kind && a.context == b.context && a.stream == b.stream && a.lock == b.lock;
  }
};

struct PseudoLockHash {
  std::size_t operator()(const PseudoLock& p) const;
};

}  // namespace gilsan::checkers

#include "checkers/core/pseudo_lock.h"

#include <functional>

namespace gilsan::checkers {
namespace {

bool is_per_context_stream_handle(Handle stream) {
  // CUstream 0 (NULL), CU_STREAM_LEGACY (0x1), CU_STREAM_PER_THREAD (0x2).
  return stream <= 2;
}

}  // namespace

std::string_view to_string(PseudoLockKind kind) {
  switch (kind) {
#define GILSAN_PSEUDO_LOCK_KIND(enumerator, core_name, graph_name, description) \
  case PseudoLockKind::enumerator:                                            \
    return core_name;
#include "checkers/core/pseudo_lock_kinds.inc"
#undef GILSAN_PSEUDO_LOCK_KIND
  }
  return "gil";
}

PseudoLock PseudoLock::gil() { return PseudoLock{}; }

PseudoLock PseudoLock::callback_thread(Handle context) {
  return PseudoLock{.kind = PseudoLockKind::callback_thread, .context = context};
}

PseudoLock PseudoLock::stream_completion(Handle context, Handle stream) {
  return PseudoLock{.kind = PseudoLockKind::stream_completion,
                    .context = is_per_context_stream_handle(stream) ? context : 0,
                    .stream = stream};
}

PseudoLock PseudoLock::context_completion(Handle context) {
  return PseudoLock{.kind = PseudoLockKind::context_completion, .context = context};
}

PseudoLock PseudoLock::host_function_lock(Handle context) {
  return PseudoLock{.kind = PseudoLockKind::host_function_lock, .context = context};
}

PseudoLock PseudoLock::user_lock(std::uint64_t id, std::string_view name) {
  return PseudoLock{.kind = PseudoLockKind::user_lock, .lock = id, .name = std::string(name)};
}

std::string PseudoLock::label() const {
  switch (kind) {
    case PseudoLockKind::gil:
      return "the GIL";
    case PseudoLockKind::callback_thread:
      return "the callback thread of context " + hex(context);
    case PseudoLockKind::stream_completion:
      return "completion of stream " + hex(stream) +
             (is_per_context_stream_handle(stream) ? " of context " + hex(context) : "");
    case PseudoLockKind::context_completion:
      return "completion of context " + hex(context);
    case PseudoLockKind::host_function_lock:
      return "the driver's host-function lock of context " + hex(context);
    case PseudoLockKind::user_lock:
      return (name.empty() ? std::string("lock") : "lock '" + name + "'") + " (" + hex(lock) + ")";
  }
  return "?";
}

std::size_t PseudoLockHash::operator()(const PseudoLock& p) const {
  std::size_t h = std::hash<int>{}(static_cast<int>(p.kind));
  for (std::uint64_t part : {p.context, p.stream, p.lock}) {
    h ^= std::hash<std::uint64_t>{}(part) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

}  // namespace gilsan::checkers

#include "checkers/core/valgrind_announcer.h"

#if __has_include(<valgrind/helgrind.h>)
#define GILSAN_HAS_VALGRIND 1
#include <sys/syscall.h>
#include <unistd.h>
#include <valgrind/helgrind.h>
#include <valgrind/valgrind.h>

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "checkers/core/effects.h"
#include "checkers/core/per_thread.h"
#include "checkers/core/pseudo_lock.h"
#endif

namespace gilsan::checkers {

#if GILSAN_HAS_VALGRIND
namespace {

ThreadId caller() { return static_cast<ThreadId>(::syscall(SYS_gettid)); }

struct Held {
  char* address;
  bool writer;
  int depth;
};

// What this thread has announced as held, and what each running host function added.
struct AnnouncedThread {
  std::vector<Held> held;
  struct Frame {
    std::vector<Held> holds;
    int gil_depth_before = 0;
    Handle context = 0;  // the host function's: this thread holds its host-function lock
  };
  std::vector<Frame> host_functions;
  int gil_depth = 0;
};

// A PerThread, not a thread_local: events come from a thread's last moments too (per_thread.h).
AnnouncedThread& announced() { return PerThread<AnnouncedThread>::get(); }

class HelgrindAnnouncer final : public ValgrindAnnouncer {
 public:
  explicit HelgrindAnnouncer(const DriverBehaviour& behaviour) : behaviour_(behaviour) {}

  void driver_call_enter(const DriverCallEnter& event) override {
    if (event.thread != caller()) return;
    AnnouncedThread& self = announced();
    std::vector<Handle> contexts;
    for (const AnnouncedThread::Frame& frame : self.host_functions) {
      if (frame.context != 0) contexts.push_back(frame.context);
    }
    const DriverCallEffects effects = driver_call_effects(
        event,
        CallerState{.runs_host_function = !self.host_functions.empty(),
                    .host_function_contexts = contexts,
                    .holds_gil = self.gil_depth > 0},
        behaviour_);
    if (effects.refused || !effects.waits()) return;
    std::vector<char*> waited;
    for (const PseudoLock& completion : effects.completions) waited.push_back(address(completion));
    if (effects.blocked_by) waited.push_back(address(*effects.blocked_by));
    // A binding that holds the GIL where no trampoline of ours saw it taken (ctypes.PyDLL). One that
    // lets it go around the call while a trampoline holds it cannot be told to Helgrind: it keeps it.
    const bool borrowed_gil = effects.holds_gil && self.gil_depth == 0;
    char* gil_address = address(PseudoLock::gil());
    if (borrowed_gil) ANNOTATE_RWLOCK_ACQUIRED(gil_address, 0);
    for (char* lock : waited) {
      if (holds(self, lock)) continue;  // waiting for itself: a cycle of one, not an order
      ANNOTATE_RWLOCK_ACQUIRED(lock, 0);
      ANNOTATE_RWLOCK_RELEASED(lock, 0);
    }
    if (borrowed_gil) ANNOTATE_RWLOCK_RELEASED(gil_address, 0);
  }

  void host_function_begin(const HostFunctionBegin& event) override {
    if (event.thread != caller()) return;
    AnnouncedThread& self = announced();
    const BeginEffects effects(event.host_function, finalizing_);
    AnnouncedThread::Frame frame;
    frame.gil_depth_before = self.gil_depth;
    frame.context = event.host_function.context;
    // Helgrind sees the callback-thread wait as the acquisition itself.
    for (const std::optional<PseudoLock>& held : {effects.stream_completion(), effects.context_completion(),
                                                  effects.callback_thread(), effects.host_function_lock()}) {
      if (!held) continue;
      char* lock = address(*held);
      if (holds(self, lock)) continue;  // a nested host function record of the same run
      ANNOTATE_RWLOCK_ACQUIRED(lock, 0);
      frame.holds.push_back({lock, false, 1});
      self.held.push_back({lock, false, 1});
    }
    self.host_functions.push_back(std::move(frame));
    if (effects.takes_gil()) take_gil(self);
  }

  void host_function_end(ThreadId thread) override {
    if (thread != caller()) return;
    AnnouncedThread& self = announced();
    if (self.host_functions.empty()) return;
    AnnouncedThread::Frame frame = std::move(self.host_functions.back());
    self.host_functions.pop_back();
    // Whatever GIL the host function took is given back when it returns to the driver.
    while (self.gil_depth > frame.gil_depth_before) give_gil(self);
    for (auto it = frame.holds.rbegin(); it != frame.holds.rend(); ++it) {
      ANNOTATE_RWLOCK_RELEASED(it->address, 0);
      forget(self, it->address);
    }
  }

  void gil_acquired(ThreadId thread) override {
    if (thread == caller()) take_gil(announced());
  }
  void gil_released(ThreadId thread) override {
    if (thread == caller() && announced().gil_depth > 0) give_gil(announced());
  }

  void lock_acquire(const LockAcquire& event) override {
    if (event.thread != caller()) return;
    // Helgrind orders a lock after everything its taker holds, the GIL included; a lock that waits
    // without it (a Python lock) would get an order the model does not have, and one that cannot wait
    // gets none: only the others are announced.
    const LockAcquireEffects effects = lock_acquire_effects(event);
    if (!effects.waits || !effects.waits_holding_gil) return;
    AnnouncedThread& self = announced();
    char* lock = address(effects.lock);
    for (Held& held : self.held) {
      if (held.address == lock) {
        ++held.depth;
        return;
      }
    }
    ANNOTATE_RWLOCK_ACQUIRED(lock, 1);
    self.held.push_back({lock, true, 1});
  }

  void lock_release(ThreadId thread, std::uint64_t lock_id) override {
    if (thread != caller()) return;
    AnnouncedThread& self = announced();
    char* lock = address(PseudoLock::user_lock(lock_id, ""));
    for (Held& held : self.held) {
      if (held.address != lock) continue;
      if (--held.depth == 0) {
        ANNOTATE_RWLOCK_RELEASED(lock, 1);
        forget(self, lock);
      }
      return;
    }
  }

  void lock_destroyed(std::uint64_t lock) override { retire(PseudoLock::user_lock(lock, "")); }
  void stream_destroyed(Handle context, Handle stream) override {
    retire(PseudoLock::stream_completion(context, stream));
  }
  void context_destroyed(Handle context) override {
    for (const PseudoLock& ended : ended_with_context(context)) retire(ended);
  }
  void interpreter_finalization_began() override { finalizing_ = true; }

 private:
  // The byte that stands for `lock`, created (and announced) on first use.
  char* address(const PseudoLock& lock) {
    std::lock_guard guard(mutex_);
    auto found = addresses_.find(lock);
    if (found != addresses_.end()) return found->second.get();
    auto byte = std::make_unique<char>(0);
    char* made = byte.get();
    addresses_.emplace(lock, std::move(byte));
    ANNOTATE_RWLOCK_CREATE(made);
    return made;
  }

  // Forgets `lock`: a new one at the same handle starts without Helgrind history. Not while held:
  // its holder announces the release later and the byte must still be valid then.
  void retire(const PseudoLock& lock) {
    std::lock_guard guard(mutex_);
    auto found = addresses_.find(lock);
    if (found == addresses_.end()) return;
    for (const Held& held : announced().held) {
      if (held.address == found->second.get()) return;
    }
    ANNOTATE_RWLOCK_DESTROY(found->second.get());
    retired_.push_back(std::move(found->second));  // kept: another thread may still release it
    addresses_.erase(found);
  }

  void take_gil(AnnouncedThread& self) {
    if (self.gil_depth++ == 0) ANNOTATE_RWLOCK_ACQUIRED(address(PseudoLock::gil()), 0);
  }
  void give_gil(AnnouncedThread& self) {
    if (--self.gil_depth == 0) ANNOTATE_RWLOCK_RELEASED(address(PseudoLock::gil()), 0);
  }
  static bool holds(const AnnouncedThread& self, char* lock) {
    for (const Held& held : self.held) {
      if (held.address == lock) return true;
    }
    return false;
  }
  static void forget(AnnouncedThread& self, char* lock) {
    std::erase_if(self.held, [lock](const Held& held) { return held.address == lock; });
  }

  DriverBehaviour behaviour_;
  std::atomic<bool> finalizing_ = false;
  std::mutex mutex_;
  std::unordered_map<PseudoLock, std::unique_ptr<char>, PseudoLockHash> addresses_;
  std::vector<std::unique_ptr<char>> retired_;
};

}  // namespace

bool running_on_valgrind() { return RUNNING_ON_VALGRIND != 0; }

std::unique_ptr<ValgrindAnnouncer> ValgrindAnnouncer::create(const DriverBehaviour& behaviour) {
  if (!running_on_valgrind()) return nullptr;
  return std::make_unique<HelgrindAnnouncer>(behaviour);
}

#else

bool running_on_valgrind() { return false; }

std::unique_ptr<ValgrindAnnouncer> ValgrindAnnouncer::create(const DriverBehaviour&) { return nullptr; }

#endif

int valgrind_timeout_scale() { return running_on_valgrind() ? 50 : 1; }

}  // namespace gilsan::checkers

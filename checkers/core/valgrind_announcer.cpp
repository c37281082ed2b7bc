#include "checkers/core/valgrind_announcer.h"

#if __has_include(<valgrind/helgrind.h>)
#define GILSAN_HAS_VALGRIND 1
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <valgrind/helgrind.h>
#include <valgrind/valgrind.h>

#include <atomic>
#include <cstring>
#include <optional>
#include <type_traits>
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
  std::optional<std::uint64_t> user_lock;  // a user lock's id: its release names it by id
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
    std::vector<PseudoLock> waited = effects.completions;
    if (effects.blocked_by) waited.push_back(*effects.blocked_by);
    // A binding that holds the GIL where no trampoline of ours saw it taken (ctypes.PyDLL). One that
    // lets it go around the call while a trampoline holds it cannot be told to Helgrind: it keeps it.
    const bool borrowed_gil = effects.holds_gil && self.gil_depth == 0;
    if (borrowed_gil) ANNOTATE_RWLOCK_ACQUIRED(gil_, 0);
    for (const PseudoLock& waited_for : waited) {
      char* lock = take(waited_for);  // taken for the moment of the announcement: not reused meanwhile
      if (!holds(self, lock)) {       // waiting for itself: a cycle of one, not an order
        ANNOTATE_RWLOCK_ACQUIRED(lock, 0);
        ANNOTATE_RWLOCK_RELEASED(lock, 0);
      }
      let_go(lock);
    }
    if (borrowed_gil) ANNOTATE_RWLOCK_RELEASED(gil_, 0);
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
      char* lock = take(*held);
      if (holds(self, lock)) {  // a nested host function record of the same run
        let_go(lock);
        continue;
      }
      ANNOTATE_RWLOCK_ACQUIRED(lock, 0);
      frame.holds.push_back({lock, false, 1, std::nullopt});
      self.held.push_back({lock, false, 1, std::nullopt});
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
      let_go(it->address);
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
    for (Held& held : self.held) {
      if (held.user_lock == event.lock) {
        ++held.depth;
        return;
      }
    }
    char* lock = take(effects.lock);
    ANNOTATE_RWLOCK_ACQUIRED(lock, 1);
    self.held.push_back({lock, true, 1, event.lock});
  }

  void lock_release(ThreadId thread, std::uint64_t lock_id) override {
    if (thread != caller()) return;
    AnnouncedThread& self = announced();
    for (Held& held : self.held) {
      if (held.user_lock != lock_id) continue;
      if (--held.depth == 0) {
        char* lock = held.address;
        ANNOTATE_RWLOCK_RELEASED(lock, 1);
        forget(self, lock);
        let_go(lock);
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
  std::size_t bytes_made() const override {
    std::lock_guard guard(mutex_);
    return owned_.size();
  }

 private:
  // One pseudo-lock as Helgrind knows it: the address of its byte. A byte serves a later pseudo-lock
  // once its own has ended and no thread holds it any more, so the announcer keeps what is alive at
  // once, not every stream, event and lock a long process ever had.
  struct Announced {
    char byte = 0;         // first member: a Held's address points here (Announced is standard-layout)
    int holders = 0;       // announcements in progress or held: take() and let_go(), under mutex_
    bool ended = false;    // its pseudo-lock ended while held: destroyed and reused at the last let_go
  };
  static_assert(std::is_standard_layout_v<Announced>);
  static Announced& announced_at(char* address) { return *reinterpret_cast<Announced*>(address); }

  // The byte of `lock` (made, or reused, and announced on first use), counted as taken until let_go().
  char* take(const PseudoLock& lock) {
    std::lock_guard guard(mutex_);
    auto [entry, made] = live_.try_emplace(lock, nullptr);
    if (made) {
      if (spare_.empty()) {
        owned_.push_back(std::make_unique<Announced>());
        spare_.push_back(owned_.back().get());
      }
      entry->second = spare_.back();
      spare_.pop_back();
      ANNOTATE_RWLOCK_CREATE(&entry->second->byte);
    }
    ++entry->second->holders;
    return &entry->second->byte;
  }

  void let_go(char* address) {
    std::lock_guard guard(mutex_);
    Announced& announced = announced_at(address);
    if (--announced.holders == 0 && announced.ended) reuse(announced);
  }

  // `lock` ended (its stream, context or lock was destroyed): a new one with the same handle starts
  // without Helgrind history. Its byte is reused at once, or when its last holder lets it go.
  void retire(const PseudoLock& lock) {
    std::lock_guard guard(mutex_);
    auto found = live_.find(lock);
    if (found == live_.end()) return;
    Announced& announced = *found->second;
    live_.erase(found);
    if (announced.holders == 0) {
      reuse(announced);
    } else {
      announced.ended = true;
    }
  }

  void reuse(Announced& announced) {  // under mutex_
    ANNOTATE_RWLOCK_DESTROY(&announced.byte);
    announced.ended = false;
    spare_.push_back(&announced);
  }

  void take_gil(AnnouncedThread& self) {
    if (self.gil_depth++ == 0) ANNOTATE_RWLOCK_ACQUIRED(gil_, 0);
  }
  void give_gil(AnnouncedThread& self) {
    if (--self.gil_depth == 0) ANNOTATE_RWLOCK_RELEASED(gil_, 0);
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
  mutable std::mutex mutex_;
  std::unordered_map<PseudoLock, Announced*, PseudoLockHash> live_;  // by the pseudo-lock it stands for
  std::vector<std::unique_ptr<Announced>> owned_;  // every byte made: as many as were ever live at once
  std::vector<Announced*> spare_;                   // ended and let go: the next take() reuses one
  char* gil_ = take(PseudoLock::gil());            // taken for good: the GIL never ends
};

}  // namespace

bool running_on_valgrind() { return RUNNING_ON_VALGRIND != 0; }

bool announcements_are_read() {
  if (!running_on_valgrind()) return false;
  // Valgrind maps the running tool's preload object into the process (vgpreload_helgrind-*.so,
  // vgpreload_drd-*.so) and no other tool's; Callgrind, Cachegrind and Memcheck ignore the annotations.
  // The objects mapped, not LD_PRELOAD: the program may have changed its environment since.
  bool read = false;
  dl_iterate_phdr(
      [](dl_phdr_info* object, std::size_t, void* found) {
        const char* name = object->dlpi_name;
        if (name != nullptr && (std::strstr(name, "vgpreload_helgrind") || std::strstr(name, "vgpreload_drd"))) {
          *static_cast<bool*>(found) = true;
          return 1;
        }
        return 0;
      },
      &read);
  return read;
}

std::unique_ptr<ValgrindAnnouncer> ValgrindAnnouncer::create(const DriverBehaviour& behaviour) {
  if (!announcements_are_read()) return nullptr;
  return std::make_unique<HelgrindAnnouncer>(behaviour);
}

#else

bool running_on_valgrind() { return false; }

bool announcements_are_read() { return false; }

std::unique_ptr<ValgrindAnnouncer> ValgrindAnnouncer::create(const DriverBehaviour&) { return nullptr; }

#endif

int valgrind_timeout_scale() { return running_on_valgrind() ? 50 : 1; }

}  // namespace gilsan::checkers

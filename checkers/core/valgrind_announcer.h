// ValgrindAnnouncer: tells Valgrind's Helgrind about the sanitizer's pseudo-locks, so that
// `valgrind --tool=helgrind` reports the same lock-order inversions from its own lock-order graph
// (as 'lock order "A before B" violated'), with Valgrind's stacks.
//
// Each pseudo-lock gets a byte of its own as its address and is announced as a reader-writer lock
// with Helgrind's client requests (ANNOTATE_RWLOCK_CREATE / ACQUIRED / RELEASED / DESTROY): user
// locks in write mode; the GIL, completions, callback threads and host-function locks in read mode,
// because several threads "hold" them at once in the model (every host function of a stream holds
// its completion) and a wait only needs to be seen as an acquisition, not to exclude anyone. The GIL
// is among them because the announcer does not see every release of it: Python code that waits (an
// Event.wait, a sleep) lets it go without telling the sanitizer, so the thread still "holds" it when a
// host function takes it. In write mode Helgrind then calls that a bug in libpthread and drops the
// acquisition, order and all, and the inversion of the GIL with a stream is never reported.
// A wait (a synchronize, a call the driver blocks) is announced as an acquisition released at once.
// What each event holds and waits for is effects.h's answer, the one the lock-order model draws from.
//
// Announcements are made on the calling thread, since Helgrind attributes them to it: events whose
// thread is not the caller (a test feeding another thread's events) are not announced. Built only
// when <valgrind/helgrind.h> is available, and active only under Helgrind or DRD
// (announcements_are_read()); otherwise create() returns null and the Sanitizer pays one pointer test
// per event.
#pragma once

#include <cstddef>
#include <memory>

#include "checkers/core/events.h"

namespace gilsan::checkers {

// Whether this process runs under Valgrind (always false when built without its headers).
bool running_on_valgrind();
// Whether it runs under a Valgrind tool that reads lock annotations (Helgrind, DRD): only then is
// anything announced. Under Callgrind or Memcheck the announcer would be cost with no reader, and
// would count in every instruction count taken there.
bool announcements_are_read();
// How much longer waits that detect a hang should be: Valgrind's tools run code 20 to 100 times
// slower. 1 outside Valgrind.
int valgrind_timeout_scale();

class ValgrindAnnouncer {
 public:
  // Null unless built with Valgrind's headers and running under Helgrind or DRD.
  static std::unique_ptr<ValgrindAnnouncer> create(const DriverBehaviour& behaviour);
  virtual ~ValgrindAnnouncer() = default;

  virtual void driver_call_enter(const DriverCallEnter& event) = 0;
  virtual void host_function_begin(const HostFunctionBegin& event) = 0;
  virtual void host_function_end(ThreadId thread) = 0;
  virtual void gil_acquired(ThreadId thread) = 0;
  virtual void gil_released(ThreadId thread) = 0;
  virtual void lock_acquire(const LockAcquire& event) = 0;
  virtual void lock_release(ThreadId thread, std::uint64_t lock) = 0;
  virtual void lock_destroyed(std::uint64_t lock) = 0;
  virtual void stream_destroyed(Handle context, Handle stream) = 0;
  virtual void context_destroyed(Handle context) = 0;
  virtual void interpreter_finalization_began() = 0;
  // How many pseudo-locks' bytes were ever made: as many as were live at once, since an ended one's
  // byte serves the next (tests/checkers/helgrind_inversion.cpp checks it stays small).
  virtual std::size_t bytes_made() const = 0;
};

}  // namespace gilsan::checkers

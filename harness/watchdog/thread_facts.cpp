#include "harness/watchdog/thread_facts.h"

#include "harness/symbols/module_owner.h"
#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/lock_description.h"

namespace gilsan::watchdog {
namespace {

using board::GilState;
using board::Role;

bool is_per_thread_variant(const std::string& entry_point) {
  return entry_point.ends_with("_ptsz") || entry_point.ends_with("_ptds");
}

std::string describe_role(const ThreadFacts& facts, const ThreadSnapshot& thread) {
  switch (facts.role) {
    case Role::Main: return "main";
    case Role::Python: return "python thread";
    case Role::DriverCallback: return "callback thread of context " + hex(facts.role_context);
    case Role::DeviceExecutor: return "device executor";
    case Role::OtherNative:
    case Role::Unknown: break;
  }
  if (facts.host_function) return "callback thread of context " + hex(facts.host_function->record.context);
  if (facts.driver_thread) return "driver thread";
  std::string comm = thread.proc ? thread.proc->comm : "";
  if (facts.python_thread) return comm.empty() ? "python thread" : "python thread '" + comm + "'";
  return comm.empty() ? "native thread" : "native thread '" + comm + "'";
}

GilFact derive_gil(const board::ThreadRecord* record, const NativeWait& wait, GilState at_snapshot) {
  // A trampoline that says it waits is confirmed by the frames, not inferred from them.
  if (record != nullptr && record->gil_state == GilState::Waiting) return {GilState::Waiting, false, "board"};
  if (wait.kind == NativeWait::Kind::Gil) return {GilState::Waiting, true, "native frame " + wait.frame};
  // The interpreter's own word, taken when the snapshot sampled the thread: a thread inside a lock
  // acquire, a sleep, I/O or a C call that let the GIL go does not hold it, whatever our code wrote last.
  if (at_snapshot != GilState::Unknown) return {at_snapshot, false, "interpreter at the snapshot"};
  if (record == nullptr) return {};
  if (!record->calls.empty()) {
    const board::CallRecord& call = record->calls.back();
    // The state measured at the call's entry is newer than an explicit state set before the call.
    if (call.gil_at_entry != GilState::Unknown && record->gil_changed_ns <= call.entered_ns) {
      return {call.gil_at_entry, false, "PyGILState_Check at " + call.entry_point + " entry"};
    }
  }
  if (record->gil_state != GilState::Unknown) return {record->gil_state, false, "board"};
  return {};
}

std::optional<HostFunctionFact> merge_host_functions(const board::ThreadRecord& record) {
  if (record.host_functions.empty()) return std::nullopt;
  // Outermost first: the driver's record knows id, stream and context; a trampoline's nested record
  // knows the kind and the description.
  HostFunctionFact fact;
  fact.record = record.host_functions.front();
  for (std::size_t i = 1; i < record.host_functions.size(); ++i) {
    const board::HostFunctionRecord& inner = record.host_functions[i];
    if (inner.kind != board::HostFunctionKind::Unknown) fact.record.kind = inner.kind;
    if (!inner.implementation.empty()) fact.record.implementation = inner.implementation;
    if (!inner.description.empty()) fact.record.description = inner.description;
    if (fact.record.id == 0) fact.record.id = inner.id;
    if (fact.record.stream == 0) fact.record.stream = inner.stream;
    if (fact.record.context == 0) fact.record.context = inner.context;
  }
  return fact;
}

// The interposer records every untimed pthread_cond_wait, and most are no part of a hang: a pool's idle
// worker waiting for work, the driver's or the interpreter's own waits. A condition wait is drawn only
// where Python code waits through a library (a Python stack on the thread) or a host function does,
// and never inside a driver call or when the driver or the interpreter asked for it: otherwise every
// idle worker of a program would be drawn waiting for a notification.
bool condition_wait_matters(const ThreadFacts& facts, const ThreadSnapshot& thread) {
  const bool python_waits = thread.python_stack.has_value() && !thread.python_stack->empty();
  return (python_waits || facts.host_function.has_value()) && !facts.call && facts.waiting_lock_owner.empty();
}

ThreadFacts derive_thread(const ThreadSnapshot& thread, std::vector<std::string>& inferred) {
  ThreadFacts facts;
  facts.tid = thread.tid;
  facts.exited = thread.exited();
  const board::ThreadRecord* record = thread.board ? &*thread.board : nullptr;
  facts.native_wait = infer_native_wait(thread.native_stack);
  if (record != nullptr) {
    facts.role = record->role;
    facts.role_context = record->role_context;
    facts.waiting_lock = record->waiting_lock;
    if (facts.waiting_lock) {
      const ThreadSnapshot::NativeLockNames* names = thread.waiting_native_lock ? &*thread.waiting_native_lock : nullptr;
      facts.waiting_lock_label = describe_lock(*facts.waiting_lock, names);
      if (names != nullptr) {
        facts.waiting_lock_site = describe_call_site(*names);
        facts.waiting_lock_owner = symbols::owner_of_module(names->call_site.module);
      }
    }
    facts.held_locks = record->held_locks;
    facts.activity = record->activity;
    facts.host_function = merge_host_functions(*record);
    if (!record->calls.empty()) {
      const board::CallRecord& call = record->calls.back();
      facts.call = CallFact{normalize_entry_point(call.entry_point), call.context, call.stream, call.event,
                            true, false, call.entered_ns, is_per_thread_variant(call.entry_point)};
    }
  }
  facts.python_thread = thread.python_stack.has_value() || facts.role == Role::Main || facts.role == Role::Python;
  facts.driver_thread = facts.role == Role::DriverCallback || frames_show_driver_thread(thread.native_stack);
  facts.gil = derive_gil(record, facts.native_wait, thread.gil_at_snapshot);

  if (!facts.call && facts.native_wait.kind == NativeWait::Kind::DriverCall) {
    facts.call = CallFact{normalize_entry_point(facts.native_wait.frame), 0, 0, 0, false, true, 0};
  }
  // The watchdog's earlier samples saw it spinning in a driver call; the snapshot's own stack may
  // have missed it (no answer to the signal).
  if (!facts.call && !thread.spinning_in.empty()) {
    facts.call = CallFact{normalize_entry_point(thread.spinning_in), 0, 0, 0, false, true, 0};
  }
  // A driver thread that calls into Python, or waits for Python, runs a host function even when no
  // writer recorded one (CuPy's trampoline, a ctypes callback on the real driver).
  bool python_inside = facts.native_wait.kind == NativeWait::Kind::Gil ||
                       facts.native_wait.kind == NativeWait::Kind::PythonLock ||
                       facts.native_wait.kind == NativeWait::Kind::FinalizationHang ||
                       thread.python_stack.has_value();
  // A thread the board names a Python thread (main, threading) is in a driver call, not in a host function.
  const bool named_python_thread = facts.role == Role::Main || facts.role == Role::Python;
  if (!facts.host_function && facts.driver_thread && python_inside && !named_python_thread) {
    HostFunctionFact fact;
    fact.inferred = true;
    fact.record.context = facts.role_context;
    fact.record.kind = board::HostFunctionKind::Python;
    fact.record.description = "not recorded on the board";
    facts.host_function = fact;
  }
  if (facts.waiting_lock && facts.waiting_lock->kind == board::LockKind::NativeCondition &&
      !condition_wait_matters(facts, thread)) {
    facts.waiting_lock.reset();
    facts.waiting_lock_label.clear();
    facts.waiting_lock_site.clear();
    facts.waiting_lock_owner.clear();
  }
  facts.role_label = describe_role(facts, thread);

  std::string who = facts.label();
  if (facts.gil.inferred) inferred.push_back(inferred_fact(who + " waits for the GIL", facts.gil.source));
  if (facts.call && facts.call->inferred) {
    inferred.push_back(inferred_fact(who + " is in " + facts.call->entry_point, "its native stack (arguments unknown)"));
  }
  if (!thread.spinning_in.empty()) {
    inferred.push_back(who + " is spinning in " + thread.spinning_in +
                       " (inferred from its native stack): its CPU use was not counted as progress");
  }
  if (facts.host_function && facts.host_function->inferred) {
    inferred.push_back(inferred_fact(
        who + " runs a host function that calls into Python",
        "driver frames below " + (facts.native_wait.frame.empty() ? std::string("its Python stack") : facts.native_wait.frame)));
  }
  return facts;
}

}  // namespace

std::string ThreadFacts::label() const {
  return "thread " + std::to_string(tid) + " (" + role_label + (exited ? ", exited" : "") + ")";
}

const ThreadFacts* SnapshotFacts::find(int tid) const {
  for (const ThreadFacts& facts : threads) {
    if (facts.tid == tid) return &facts;
  }
  return nullptr;
}

bool same_stream(std::uint64_t stream_a, std::uint64_t context_a, std::uint64_t stream_b, std::uint64_t context_b) {
  if (stream_a != stream_b) return false;
  if (stream_a > 2) return true;
  return context_a == 0 || context_b == 0 || context_a == context_b;
}

std::string inferred_fact(const std::string& what, const std::string& inferred_from) {
  return what + ": inferred from " + inferred_from;
}

SnapshotFacts derive_facts(const Snapshot& snapshot) {
  SnapshotFacts result;
  for (const ThreadSnapshot& thread : snapshot.threads) result.threads.push_back(derive_thread(thread, result.inferred));

  result.finalizing = snapshot.interpreter_finalizing;
  if (!result.finalizing) {
    for (const ThreadSnapshot& thread : snapshot.threads) {
      if (frames_show_finalization(thread.native_stack)) {
        result.finalizing = true;
        result.finalizing_inferred = true;
        const ThreadFacts* facts = result.find(thread.tid);
        result.inferred.push_back("the interpreter is finalizing: inferred from the native stack of " +
                                  (facts != nullptr ? facts->label() : "thread " + std::to_string(thread.tid)));
        break;
      }
    }
  }

  bool someone_waits = false;
  bool someone_holds = false;
  for (const ThreadFacts& facts : result.threads) {
    someone_waits |= facts.gil.state == GilState::Waiting;
    someone_holds |= facts.gil.state == GilState::Holds;
  }
  if (someone_waits && !someone_holds) {
    // The holder must be blocked without having released the GIL: in a driver call or a native lock.
    ThreadFacts* candidate = nullptr;
    int candidates = 0;
    for (ThreadFacts& facts : result.threads) {
      bool blocked_holding = facts.call.has_value() || facts.native_wait.kind == NativeWait::Kind::NativeLock;
      if (!facts.exited && facts.python_thread && facts.gil.state == GilState::Unknown && blocked_holding) {
        candidate = &facts;
        ++candidates;
      }
    }
    if (candidates == 1) {
      candidate->gil = GilFact{GilState::Holds, true,
                               "elimination: the only Python thread blocked without having released the GIL"};
      result.inferred.push_back(candidate->label() + " holds the GIL: inferred by elimination (the only Python "
                                "thread blocked in a call that does not release it)");
    }
  }
  return result;
}

}  // namespace gilsan::watchdog

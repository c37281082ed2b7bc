// ThreadFacts: what the classifier concludes about each thread of a snapshot, from the board when the
// thread wrote it and from its native stack otherwise. Each fact says where it came from, and facts
// not read from the board are marked inferred.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/board/board_records.h"
#include "harness/watchdog/frame_inference.h"
#include "harness/watchdog/snapshot.h"

namespace gilsan::watchdog {

struct GilFact {
  board::GilState state = board::GilState::Unknown;
  bool inferred = false;
  std::string source;  // "board", "PyGILState_Check at cuStreamSynchronize entry", "native frame take_gil"...
};

struct CallFact {
  std::string entry_point;  // normalized (no _v2/_ptsz)
  std::uint64_t context = 0;
  std::uint64_t stream = 0;
  std::uint64_t event = 0;
  bool handles_known = false;  // false when the call was read from native frames
  bool inferred = false;
  std::uint64_t entered_ns = 0;
  // A _ptsz/_ptds variant: its NULL stream is the calling thread's per-thread stream, not the legacy
  // stream (whose waits cover the whole context, checkers/core/synchronizing_calls.h).
  bool per_thread = false;
};

struct HostFunctionFact {
  board::HostFunctionRecord record;  // the driver's and the trampoline's records merged
  bool inferred = false;             // a driver thread seen calling into Python, no board record
};

struct ThreadFacts {
  int tid = 0;
  bool exited = false;
  board::Role role = board::Role::Unknown;
  std::uint64_t role_context = 0;
  std::string role_label;  // "main", "callback thread of context 0x30", "python", "native 'worker'"...
  GilFact gil;
  std::optional<CallFact> call;
  std::optional<HostFunctionFact> host_function;
  NativeWait native_wait;
  bool driver_thread = false;  // runs driver code (role or frames)
  bool python_thread = false;  // has a Python stack or a Python role
  std::optional<board::LockRecord> waiting_lock;
  std::string waiting_lock_label;  // describe_lock's name for it (lock_description.h); "" when none
  std::string waiting_lock_site;   // describe_call_site's text for a native lock; "" when none
  std::string waiting_lock_owner;  // "the driver" or "the interpreter" when it is one of theirs (owner_of_module)
  std::vector<board::LockRecord> held_locks;
  std::string activity;  // what the program said the thread does (board::set_activity); "" when nothing

  // "thread 12345 (main)"
  std::string label() const;
};

struct SnapshotFacts {
  std::vector<ThreadFacts> threads;  // in the snapshot's order
  bool finalizing = false;
  bool finalizing_inferred = false;
  std::vector<std::string> inferred;  // one sentence per inferred fact, for the report

  const ThreadFacts* find(int tid) const;
};

// The report's sentence for a fact not read from the board: "WHAT: inferred from WHERE". One home, so
// that a fact inferred for a thread and the same fact as an inferred edge of the cycle are listed once.
std::string inferred_fact(const std::string& what, const std::string& inferred_from);

// Derives every thread's facts, then infers the GIL's holder when no thread is known to hold it but
// some wait for it: the only Python thread that neither waits for the GIL nor has released it.
SnapshotFacts derive_facts(const Snapshot& snapshot);

// Same stream? Handles 0, 1 and 2 (the legacy and per-thread default streams) are per context.
bool same_stream(std::uint64_t stream_a, std::uint64_t context_a, std::uint64_t stream_b, std::uint64_t context_b);

}  // namespace gilsan::watchdog

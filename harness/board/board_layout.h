// The board's shared-memory layout: one region per run, created by the parent (BoardRegion) and
// mapped by every writer in the child (board_writer.h), which may be separate static copies of the
// writer code in separate shared objects. All state therefore lives here, none in the writers.
//
// Every field the child writes while the parent may read it is a lock-free atomic, so the layout is
// address-free (it works at different addresses in different processes) and free of data races.
// Groups of fields that must be read together are guarded by a seqlock: the writer makes `seq` odd,
// stores the fields (release), then makes it even again (release); a reader loads the fields
// (acquire) and retries until it saw the same even value before and after its copy. A slot's state has one writer (its thread); its native-stack area has
// another seqlock because a signal handler on that same thread writes it, possibly while the thread
// was in the middle of a state write.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <time.h>

namespace gilsan::board {

inline constexpr std::uint64_t kMagic = 0x31426e61736c6967ULL;  // "gilsanB1" read little-endian
inline constexpr std::uint32_t kLayoutVersion = 4;

inline constexpr std::size_t kMaxThreads = 256;
inline constexpr std::size_t kMaxCallDepth = 4;          // nested driver-call records (several writers)
inline constexpr std::size_t kMaxHostFunctionDepth = 2;  // the driver's record and the trampoline's
inline constexpr std::size_t kMaxHeldLocks = 4;
inline constexpr std::size_t kMaxFrames = 48;
inline constexpr std::size_t kMaxPendingHostFunctions = 256;
inline constexpr std::size_t kMaxEventRecords = 128;

enum class Role : std::uint32_t {
  Unknown = 0,         // never said
  Main = 1,            // the process's main thread
  Python = 2,          // a thread started by Python (threading)
  DriverCallback = 3,  // the driver's host-function thread of one context (role_context)
  DeviceExecutor = 4,  // the simulated driver's thread that runs device work
  OtherNative = 5,     // any other native thread
};

enum class GilState : std::uint32_t { Unknown = 0, Holds = 1, Waiting = 2, Released = 3 };

enum class HostFunctionKind : std::uint32_t { Unknown = 0, Python = 1, Ctypes = 2, Native = 3 };

// What a recorded lock is. A Python lock is recorded by the code that knows it (the module, the lock
// tracing); a native one by the interposer (harness/nativelocks), only while a thread waits for it.
enum class LockKind : std::uint32_t {
  Python = 0,          // a lock a writer named (threading's locks)
  NativeMutex = 1,     // pthread_mutex_t (std::mutex and friends)
  NativeWriteLock = 2,  // pthread_rwlock_t, taken to write
  NativeReadLock = 3,   // pthread_rwlock_t, taken to read
  // Not a lock: a wait for some thread to notify (threading.Condition.wait, and what waits through it:
  // Event, Semaphore, Barrier, queue.Queue, concurrent.futures.Future). Nobody holds it.
  Notification = 4,
  // A thread in pthread_cond_wait (std::condition_variable and friends), recorded by the interposer:
  // a notification too, of a native condition variable, named by its address and the caller.
  NativeCondition = 5,
};

// Kinds of progress. Each has a global counter in the header and a per-thread one in the slot.
enum class ProgressKind : std::uint32_t {
  DriverCall = 0,       // a driver call returned (bumped by exit_call)
  HostFunction = 1,     // a host function returned (bumped by end_host_function)
  DeviceWork = 2,       // a device work item completed
  DeviceHeartbeat = 3,  // device work is still executing (a long kernel is not a hang)
  Python = 4,           // Python-level progress a scenario or module chose to announce
  Other = 5,
};
inline constexpr std::size_t kProgressKinds = 6;

// Fixed-size text stored as atomic 8-byte words; truncated, always NUL-terminated when read back.
template <std::size_t Words>
struct PackedText {
  std::atomic<std::uint64_t> words[Words];
  // The writers' own note of where the words were copied from: the address of a literal text
  // (store_literal), 1 for none, 0 when unknown. Readers ignore it. An address means the same text
  // only within one program image: attach forgets every note when the image changed (exec).
  std::atomic<std::uint64_t> copied_from;

  static constexpr std::size_t capacity() { return Words * 8 - 1; }

  void store(const char* text) {
    copy(text);
    copied_from.store(0, std::memory_order_relaxed);
  }

  // For a text whose address says what it holds: a string literal, or a name table's entry that lives
  // as long as the process. A text already in place is not copied again: drivers name the same entry
  // point at every call, and the copy was most of what recording a call cost. Every writer of one
  // board is in one process (the board's owner) and one image of it, so an address means the same
  // text to each.
  void store_literal(const char* text) {
    const std::uint64_t from = text == nullptr ? 1 : reinterpret_cast<std::uintptr_t>(text);
    if (copied_from.load(std::memory_order_relaxed) == from) return;
    copy(text);
    copied_from.store(from, std::memory_order_relaxed);
  }

  void copy(const char* text) {
    char bytes[Words * 8] = {};
    if (text != nullptr) std::memcpy(bytes, text, ::strnlen(text, capacity()));
    for (std::size_t i = 0; i < Words; ++i) {
      std::uint64_t word;
      std::memcpy(&word, bytes + i * 8, 8);
      words[i].store(word, std::memory_order_release);  // seqlocked data: see board_writer_state.h
    }
  }

  std::string load() const {
    char bytes[Words * 8 + 1] = {};
    for (std::size_t i = 0; i < Words; ++i) {
      std::uint64_t word = words[i].load(std::memory_order_acquire);
      std::memcpy(bytes + i * 8, &word, 8);
    }
    return std::string(bytes);
  }
};

struct CallSlot {
  PackedText<6> entry_point;  // e.g. "cuStreamSynchronize"
  std::atomic<std::uint64_t> context;
  std::atomic<std::uint64_t> stream;
  std::atomic<std::uint64_t> event;
  std::atomic<std::uint64_t> entered_ns;    // CLOCK_MONOTONIC
  std::atomic<std::uint32_t> gil_at_entry;  // GilState, from PyGILState_Check when Python is loaded
};

struct HostFunctionSlot {
  std::atomic<std::uint64_t> id;
  std::atomic<std::uint64_t> context;
  std::atomic<std::uint64_t> stream;
  std::atomic<std::uint32_t> kind;  // HostFunctionKind
  PackedText<4> implementation;     // who launched it: "gilsan", "cupy", "ctypes", "simcuda"...
  PackedText<12> description;       // e.g. "scenario.py:14 cb"
  std::atomic<std::uint64_t> at_ns;  // began (running) or enqueued (pending)
};

struct LockSlot {
  std::atomic<std::uint64_t> id;  // any stable identity, e.g. the lock's address
  PackedText<8> name;  // "Lock at app.py:12", "Event at app.py:12": room for a long file name
  std::atomic<std::uint64_t> since_ns;
  std::atomic<std::uint32_t> kind;  // LockKind
  // Who holds it, as the lock itself says (a native mutex's owner field, read by the waiter); 0 when
  // the lock does not say (a Python lock: its holder records holding it instead).
  std::atomic<std::int32_t> holder_tid;
  std::atomic<std::uint64_t> call_site;  // the return address of the native acquire call; 0 for none
};

struct alignas(64) ThreadSlot {
  std::atomic<std::int32_t> tid;  // 0: free; claimed with a compare-and-swap from 0

  // --- state, guarded by seq (written only by the owning thread) ---
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint64_t> pthread_id;  // pthread_self(), to match Python's thread idents
  std::atomic<std::uint32_t> role;        // Role
  std::atomic<std::uint64_t> role_context;
  std::atomic<std::uint32_t> gil_state;  // GilState, as last set explicitly
  std::atomic<std::uint64_t> gil_changed_ns;
  std::atomic<std::uint32_t> call_depth;
  CallSlot calls[kMaxCallDepth];
  std::atomic<std::uint32_t> host_function_depth;
  HostFunctionSlot host_functions[kMaxHostFunctionDepth];
  std::atomic<std::uint32_t> waiting_for_lock;  // 1 when waiting_lock is valid
  LockSlot waiting_lock;
  std::atomic<std::uint32_t> held_lock_count;
  LockSlot held_locks[kMaxHeldLocks];
  // What the program says the thread is doing for its user (set_activity): the test that runs on it,
  // under the pytest plugin. Empty: nothing said.
  PackedText<16> activity;

  // --- progress: monotonic counters, outside the seqlock ---
  std::atomic<std::uint64_t> progress[kProgressKinds];

  // --- native stack, guarded by stack_seq (written by signal handlers on this thread) ---
  std::atomic<std::uint64_t> stack_seq;
  std::atomic<std::uint64_t> stack_answer;  // the header's stack_request this stack answers
  std::atomic<std::int32_t> stack_signal;   // the signal whose handler wrote it
  std::atomic<std::uint32_t> frame_count;
  // The GIL as the interpreter had it when the stack was sampled (GilState; Unknown for a thread with
  // no Python thread state, a crash's stack, or no interpreter): the truth a report shows, where
  // gil_state is only what our own code said last.
  std::atomic<std::uint32_t> stack_gil;
  std::atomic<std::uint64_t> frames[kMaxFrames];  // frames[0] is the interrupted instruction
};

// A host function enqueued but not yet running (so a stream can be seen waiting for it).
struct PendingHostFunctionSlot {
  std::atomic<std::uint64_t> seq;   // odd while one writer owns the entry (claimed by CAS)
  std::atomic<std::uint32_t> used;  // 1 while the entry describes a pending host function
  HostFunctionSlot info;
};

// The stream an event was last recorded on, so a wait for the event can be traced to a stream.
struct EventRecordSlot {
  std::atomic<std::uint64_t> seq;  // odd while one writer owns the entry (claimed by CAS)
  std::atomic<std::uint64_t> event;
  std::atomic<std::uint64_t> stream;
  std::atomic<std::uint64_t> context;
  std::atomic<std::uint64_t> recorded_ns;
};

// A counter that several threads bump, alone on its cache line.
struct alignas(64) SharedCounter {
  std::atomic<std::uint64_t> value;
};

struct BoardHeader {
  // Written once by the parent before the child starts; read-only afterwards.
  std::uint64_t magic;
  std::uint32_t layout_version;
  std::uint32_t slot_count;
  std::uint64_t total_size;
  std::uint32_t crash_wait_ms;  // how long a crashing thread waits for the parent's snapshot

  std::atomic<std::int32_t> owner_pid;            // the first process that attached; others stay off
  std::atomic<std::uint64_t> owner_image;         // which program image of it (AT_RANDOM): a new one after exec
  std::atomic<std::int32_t> stack_sample_signal;  // set by install_stack_sampler()
  std::atomic<std::int32_t> python_stack_signal;  // set by announce_python_stack_signal()
  std::atomic<std::uint64_t> stack_request;       // bumped by the parent before it signals threads
  std::atomic<std::uint64_t> device_busy_until_ns;  // declared device work runs at least until then
  std::atomic<std::uint32_t> interpreter_finalizing;
  // The counters every writer bumps, each on a cache line of its own: a launching thread counts its
  // driver calls while the callback thread counts host functions, and counters sharing a line made
  // each count wait for the line to come back from the other core.
  SharedCounter progress[kProgressKinds];
  SharedCounter lost_writes;  // writes dropped because a table was full
  // Pending host functions placed in the table and taken off it (writers' own use: the difference
  // says whether the table is full).
  SharedCounter pending_placed;
  SharedCounter pending_taken;

  std::atomic<std::int32_t> crash_signal;  // first fatal signal; 0 while none
  std::atomic<std::int32_t> crash_tid;
  std::atomic<std::uint64_t> crash_address;
  std::atomic<std::uint32_t> crash_acknowledged;  // set by the parent once it took its snapshot
};

struct Board {
  BoardHeader header;
  ThreadSlot slots[kMaxThreads];
  PendingHostFunctionSlot pending[kMaxPendingHostFunctions];
  EventRecordSlot events[kMaxEventRecords];
};

static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the board needs address-free atomics");
static_assert(std::atomic<std::int32_t>::is_always_lock_free, "the board needs address-free atomics");

// CLOCK_MONOTONIC in nanoseconds: the clock of every *_ns field on the board, the same in the parent
// and the child.
inline std::uint64_t monotonic_ns() {
  struct timespec now {};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(now.tv_nsec);
}

// Inline so that each static copy of the writer and the parent's reader can use them freely.
inline const char* to_string(Role role) {
  switch (role) {
    case Role::Unknown: return "unknown";
    case Role::Main: return "main";
    case Role::Python: return "python";
    case Role::DriverCallback: return "driver-callback";
    case Role::DeviceExecutor: return "device-executor";
    case Role::OtherNative: return "native";
  }
  return "invalid";
}

inline const char* to_string(GilState state) {
  switch (state) {
    case GilState::Unknown: return "unknown";
    case GilState::Holds: return "holds";
    case GilState::Waiting: return "waiting";
    case GilState::Released: return "released";
  }
  return "invalid";
}

inline const char* to_string(HostFunctionKind kind) {
  switch (kind) {
    case HostFunctionKind::Unknown: return "unknown";
    case HostFunctionKind::Python: return "python";
    case HostFunctionKind::Ctypes: return "ctypes";
    case HostFunctionKind::Native: return "native";
  }
  return "invalid";
}

inline const char* to_string(LockKind kind) {
  switch (kind) {
    case LockKind::Python: return "python";
    case LockKind::NativeMutex: return "native-mutex";
    case LockKind::NativeWriteLock: return "native-write-lock";
    case LockKind::NativeReadLock: return "native-read-lock";
    case LockKind::Notification: return "notification";
    case LockKind::NativeCondition: return "native-condition";
  }
  return "invalid";
}

inline const char* to_string(ProgressKind kind) {
  switch (kind) {
    case ProgressKind::DriverCall: return "driver_calls";
    case ProgressKind::HostFunction: return "host_functions";
    case ProgressKind::DeviceWork: return "device_work";
    case ProgressKind::DeviceHeartbeat: return "device_heartbeats";
    case ProgressKind::Python: return "python";
    case ProgressKind::Other: return "other";
  }
  return "invalid";
}

}  // namespace gilsan::board

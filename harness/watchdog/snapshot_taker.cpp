#include "harness/watchdog/snapshot_taker.h"

#include <algorithm>
#include <future>
#include <map>
#include <set>
#include <system_error>

#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/native_stacks.h"
#include "harness/watchdog/proc_threads.h"
#include "harness/watchdog/python_stacks.h"

namespace gilsan::watchdog {
namespace {

std::vector<PythonThreadStack> python_stacks(pid_t pid, int signal_number, const SnapshotOptions& options,
                                             Snapshot& snapshot) {
  if (options.python_stack_fd < 0) {
    snapshot.notes.push_back("Python stacks: no faulthandler pipe was given to the watchdog");
    return {};
  }
  if (signal_number == 0) {
    snapshot.notes.push_back("Python stacks: the child announced no faulthandler signal");
    return {};
  }
  PythonStackRequest request{pid, signal_number, options.python_stack_fd, options.python_stack_timeout,
                             options.python_stack_idle_gap};
  try {
    snapshot.python_stack_text = collect_python_stacks(request);
  } catch (const std::system_error& error) {
    snapshot.notes.push_back(std::string("Python stacks: ") + error.what());
    return {};
  }
  if (snapshot.python_stack_text.empty()) {
    snapshot.notes.push_back("Python stacks: faulthandler wrote nothing within " +
                             std::to_string(options.python_stack_timeout.count()) + " ms");
  }
  return parse_faulthandler_dump(snapshot.python_stack_text);
}

// The board's counters and tables, and one ThreadSnapshot per thread that /proc lists or the board
// has a slot for, with its /proc state and board record (no stacks).
void add_proc_and_board(Snapshot& snapshot, const std::vector<int>& tids,
                        const std::map<int, ProcThreadState>& proc_states, board::BoardContents board) {
  snapshot.progress = board.progress;
  snapshot.device_busy_until_ns = board.device_busy_until_ns;
  snapshot.interpreter_finalizing = board.interpreter_finalizing;
  snapshot.crash = board.crash;
  snapshot.pending_host_functions = std::move(board.pending_host_functions);
  snapshot.events = std::move(board.events);
  if (board.lost_writes > 0) {
    snapshot.notes.push_back("board: " + std::to_string(board.lost_writes) + " writes were lost (a table was full)");
  }
  std::set<int> all_tids(tids.begin(), tids.end());
  std::map<int, board::ThreadRecord> records;
  for (board::ThreadRecord& record : board.threads) {
    all_tids.insert(record.tid);
    records[record.tid] = std::move(record);
  }
  for (int tid : all_tids) {
    ThreadSnapshot thread;
    thread.tid = tid;
    if (auto found = proc_states.find(tid); found != proc_states.end()) thread.proc = found->second;
    if (auto found = records.find(tid); found != records.end()) thread.board = std::move(found->second);
    snapshot.threads.push_back(std::move(thread));
  }
}

std::map<int, ProcThreadState> read_proc_states(pid_t pid, const std::vector<int>& tids) {
  std::map<int, ProcThreadState> proc_states;
  for (int tid : tids) {
    if (auto state = read_thread_state(pid, tid)) proc_states[tid] = std::move(*state);
  }
  return proc_states;
}

}  // namespace

Snapshot take_snapshot(pid_t pid, board::BoardReader& reader, Symbolizer& symbolizer,
                       const SnapshotOptions& options, std::uint64_t last_progress_ns) {
  Snapshot snapshot;
  snapshot.pid = static_cast<int>(pid);
  snapshot.taken_ns = board::monotonic_ns();
  snapshot.last_progress_ns = last_progress_ns;

  std::vector<int> tids = list_threads(pid);
  const std::map<int, ProcThreadState> proc_states = read_proc_states(pid, tids);
  if (tids.empty()) snapshot.notes.push_back("/proc: process " + std::to_string(pid) + " has no threads left");

  std::optional<board::CrashRecord> crash = reader.crash();
  NativeStackRound native = sample_native_stacks(pid, reader, tids, crash ? crash->tid : 0,
                                                 options.native_stack_timeout);
  // Naming the native frames (file:line reads each module's DWARF once: tens of milliseconds) runs
  // while the Python stacks are awaited, which is mostly waiting for faulthandler's pipe to go quiet.
  // The symbolizer is the helper's alone until get(); the hung threads do not load libraries.
  symbolizer.update_mappings(read_memory_maps(pid));
  auto named_native = std::async(std::launch::async, [&symbolizer, &native] {
    std::map<int, std::vector<NativeFrame>> named;
    for (const auto& [tid, frames] : native.stacks) named[tid] = symbolizer.symbolize_stack(frames);
    return named;
  });
  std::vector<PythonThreadStack> python = python_stacks(pid, reader.python_stack_signal(), options, snapshot);
  std::map<int, std::vector<NativeFrame>> native_frames = named_native.get();
  add_proc_and_board(snapshot, tids, proc_states, reader.read());
  for (ThreadSnapshot& thread : snapshot.threads) {
    const int tid = thread.tid;
    if (auto gil = native.gil.find(tid); gil != native.gil.end()) thread.gil_at_snapshot = gil->second;
    if (auto found = native_frames.find(tid); found != native_frames.end()) {
      thread.native_stack = std::move(found->second);
    } else if (crash && crash->tid == tid && thread.board) {
      thread.native_stack = symbolizer.symbolize_stack(thread.board->frames);
      thread.native_stack_note = "stack written by the crash handler";
    } else if (auto why = native.missing.find(tid); why != native.missing.end()) {
      thread.native_stack_note = why->second;
    } else if (thread.exited()) {
      thread.native_stack_note = "the thread had exited";
    }
  }

  for (ThreadSnapshot& thread : snapshot.threads) {
    if (!thread.board || !thread.board->waiting_lock || !thread.board->waiting_lock->native()) continue;
    const board::LockRecord& lock = *thread.board->waiting_lock;
    thread.waiting_native_lock = ThreadSnapshot::NativeLockNames{
        symbolizer.name_data(lock.id), symbolizer.symbolize(lock.call_site, /*return_address=*/true)};
  }

  // Python names threads by pthread_self(); the board knows each slot's pthread_self().
  for (PythonThreadStack& stack : python) {
    auto owner = std::find_if(snapshot.threads.begin(), snapshot.threads.end(), [&](const ThreadSnapshot& t) {
      return t.board && t.board->pthread_id == stack.thread_ident;
    });
    if (owner != snapshot.threads.end()) {
      owner->python_stack = std::move(stack.frames);
    } else {
      snapshot.notes.push_back("Python stacks: thread " + hex(stack.thread_ident) +
                               " has no board slot, so its stack is only in the raw dump");
    }
  }
  std::set<std::string> modules;
  for (const ThreadSnapshot& thread : snapshot.threads) {
    for (const NativeFrame& frame : thread.native_stack) modules.insert(frame.module);
  }
  for (const std::string& problem : symbolizer.problems_in(modules)) snapshot.notes.push_back("symbols: " + problem);
  if (std::string why_not = SourceLines::unavailable_reason(); !why_not.empty() && !modules.empty()) {
    snapshot.notes.push_back("symbols: no file:line: " + why_not);
  }
  return snapshot;
}

void name_native_stacks_ahead(pid_t pid, board::BoardReader& reader, Symbolizer& symbolizer,
                              const SnapshotOptions& options) {
  const NativeStackRound native = sample_native_stacks(pid, reader, list_threads(pid), 0, options.native_stack_timeout);
  symbolizer.update_mappings(read_memory_maps(pid));
  for (const auto& [tid, frames] : native.stacks) symbolizer.symbolize_stack(frames);
}

Snapshot take_board_view(pid_t pid, board::BoardReader& reader, std::uint64_t last_progress_ns) {
  Snapshot view;
  view.pid = static_cast<int>(pid);
  view.taken_ns = board::monotonic_ns();
  view.last_progress_ns = last_progress_ns;
  const std::vector<int> tids = list_threads(pid);
  add_proc_and_board(view, tids, read_proc_states(pid, tids), reader.read());
  return view;
}

}  // namespace gilsan::watchdog

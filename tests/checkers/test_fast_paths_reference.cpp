// The Sanitizer's shortcuts against a plain reference, at random (issue 32, item 5): 500 seeds of 200
// events each -- two application threads taking and letting go of the GIL and two locks, synchronizing
// streams with the GIL held or not, allocating, enqueuing host functions; two callback threads running
// native and Python host functions (repeated ones too, which the shortcuts hold back), taking locks and
// synchronizing inside them; streams and locks destroyed and made again -- fed to a Sanitizer with its
// fast paths and to one without (SanitizerConfig::fast_paths), which must report the same findings;
// after every event both models' invariants must hold (SanitizerModel::check_invariants).
// The lock-order graph's own caches and slot reuse have their reference test
// (test_lock_order_graph_reference.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

// One line per finding, without what only says how the model got there (stacks: none are given).
std::vector<std::string> findings(const Sanitizer& sanitizer) {
  std::vector<std::string> lines;
  for (const Report& report : sanitizer.reports()) {
    std::string line = std::string(to_string(report.checker)) + " | " + report.summary;
    if (report.thread) line += " | thread " + std::to_string(report.thread->id);
    for (const PseudoLock& lock : report.cycle) line += " | " + lock.label();
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

struct AppThread {
  ThreadId id;
  bool holds_gil = false;
  std::set<std::uint64_t> locks;
};

struct CallbackThread {
  ThreadId id;
  Handle context;
  std::vector<Handle> streams;
  int depth = 0;  // host functions running, nested
  std::set<std::uint64_t> locks;  // taken inside a host function or between them
};

// Both sanitizers get every event; the generator keeps the sequence one a process could send.
class TwoSanitizers {
 public:
  TwoSanitizers() : fast_(config(true)), plain_(config(false)) {}

  // Each event to both, then both models' invariants (SanitizerModel::check_invariants).
  template <typename Send>
  void send(Send&& event) {
    event(fast_);
    event(plain_);
    ASSERT_EQ(fast_.check_invariants(), "") << "with the fast paths";
    ASSERT_EQ(plain_.check_invariants(), "") << "without the fast paths";
  }
  Sanitizer& fast() { return fast_; }
  Sanitizer& plain() { return plain_; }

 private:
  static SanitizerConfig config(bool fast_paths) {
    SanitizerConfig config{Options(), measured_driver(), Suppressions(), {std::make_shared<RecordingSink>()}, {}};
    config.fast_paths = fast_paths;
    return config;
  }
  Sanitizer fast_;
  Sanitizer plain_;
};

// Returns the checkers the seed's findings came from.
std::set<std::string> run_fast_paths_seed(unsigned seed) {
  std::mt19937 random(seed);
  auto below = [&random](std::size_t bound) { return std::uniform_int_distribution<std::size_t>(0, bound - 1)(random); };
  TwoSanitizers both;
  std::vector<AppThread> apps = {{kMain}, {kWorker}};
  std::vector<CallbackThread> callbacks = {{kCallback, kContext, {kStream1, kStream2}},
                                           {kCallback2, kContext2, {kStream3}}};
  const std::vector<std::uint64_t> locks = {7, 8};
  const std::vector<std::string_view> callables = {"libapp.so:on_done", "s.py:3 cb", "s.py:9 other"};
  std::uint64_t next_id = 1;
  auto any_stream = [&](Handle& context) {
    const CallbackThread& owner = callbacks[below(callbacks.size())];
    context = owner.context;
    return owner.streams[below(owner.streams.size())];
  };
  auto host_function = [&](Handle context, Handle stream) {
    const std::size_t which = below(callables.size());
    HostFunction made = Harness::host_function(which == 0 ? HostFunctionKind::native : HostFunctionKind::python,
                                               stream, std::string(callables[which]), context);
    made.id = next_id;
    made.run_key = next_id++;
    return made;
  };
  // A lock the thread holds is let go; one nobody holds is taken (a held one would block: skipped).
  auto take_or_let_go_of_a_lock = [&](ThreadId thread, std::set<std::uint64_t>& mine) {
    const std::uint64_t lock = locks[below(locks.size())];
    if (mine.erase(lock) != 0) {
      both.send([&](Sanitizer& s) { s.lock_release(thread, lock); });
      return;
    }
    bool taken_elsewhere = false;
    for (const AppThread& other : apps) taken_elsewhere |= other.locks.contains(lock);
    for (const CallbackThread& other : callbacks) taken_elsewhere |= other.locks.contains(lock);
    if (taken_elsewhere) return;
    both.send([&](Sanitizer& s) { s.lock_acquire({.thread = thread, .lock = lock, .name = "queue_lock"}); });
    mine.insert(lock);
  };
  for (int step = 0; step < 200; ++step) {
    const bool on_callback = below(5) < 2;
    if (!on_callback) {
      AppThread& app = apps[below(apps.size())];
      Handle context = 0;
      switch (below(7)) {
        case 0:
          if (app.holds_gil) {
            both.send([&](Sanitizer& s) { s.gil_released(app.id); });
          } else {
            both.send([&](Sanitizer& s) {
              s.gil_acquire_begin(app.id);
              s.gil_acquired(app.id);
            });
          }
          app.holds_gil = !app.holds_gil;
          break;
        case 1: {
          const Handle stream = any_stream(context);
          both.send([&](Sanitizer& s) {
            s.driver_call_enter({.thread = app.id, .entry_point = "cuStreamSynchronize", .context = context,
                                 .stream = stream, .holds_gil = app.holds_gil, .waits = {.streams = {stream}}});
            s.driver_call_exit({.thread = app.id, .entry_point = "cuStreamSynchronize", .result = kCudaSuccess});
          });
          break;
        }
        case 2: {
          const Handle stream = any_stream(context);
          const HostFunction made = host_function(context, stream);
          both.send([&](Sanitizer& s) { s.host_function_enqueued({.thread = app.id, .host_function = made}); });
          break;
        }
        case 3:
          take_or_let_go_of_a_lock(app.id, app.locks);
          break;
        case 4:
          context = callbacks[below(callbacks.size())].context;
          both.send([&](Sanitizer& s) {
            s.driver_call_enter({.thread = app.id, .entry_point = "cuMemAlloc", .context = context,
                                 .holds_gil = app.holds_gil});
            s.driver_call_exit({.thread = app.id, .entry_point = "cuMemAlloc", .result = kCudaSuccess});
          });
          break;
        case 5:
          if (below(4) == 0) {
            const Handle stream = any_stream(context);
            both.send([&](Sanitizer& s) { s.stream_destroyed(context, stream); });
          }
          break;
        default: {
          const std::uint64_t lock = locks[below(locks.size())];
          bool held = false;
          for (const AppThread& other : apps) held |= other.locks.contains(lock);
          for (const CallbackThread& other : callbacks) held |= other.locks.contains(lock);
          if (!held && below(4) == 0) both.send([&](Sanitizer& s) { s.lock_destroyed(lock); });
          break;
        }
      }
      continue;
    }
    CallbackThread& callback = callbacks[below(callbacks.size())];
    // Locks and waits outside host functions too: a thread that holds something when a run begins is
    // one whose begin the shortcut must not hold back.
    const std::size_t action = callback.depth == 0 && below(2) == 0 ? 0 : below(5);
    if (action == 0 && callback.depth < 2) {
      // Mostly the same native function on the first stream again: the run the shortcut holds back.
      const Handle stream = callback.streams[below(3) == 0 ? below(callback.streams.size()) : 0];
      HostFunction made = below(2) == 0 ? host_function(callback.context, stream)
                                        : Harness::host_function(HostFunctionKind::native, stream,
                                                                 "libapp.so:on_done", callback.context);
      both.send([&](Sanitizer& s) { s.host_function_begin({.thread = callback.id, .host_function = made}); });
      ++callback.depth;
    } else if (action <= 1 && callback.depth > 0 && callback.locks.empty()) {
      both.send([&](Sanitizer& s) { s.host_function_end(callback.id); });
      --callback.depth;
    } else if (action == 2) {
      take_or_let_go_of_a_lock(callback.id, callback.locks);
    } else if (action == 3) {
      const Handle stream = callback.streams[below(callback.streams.size())];
      both.send([&](Sanitizer& s) {
        s.driver_call_enter({.thread = callback.id, .entry_point = "cuStreamSynchronize", .context = callback.context,
                             .stream = stream, .waits = {.streams = {stream}}});
        s.driver_call_exit({.thread = callback.id, .entry_point = "cuStreamSynchronize", .result = kCudaSuccess});
      });
    } else if (callback.depth > 0) {
      both.send([&](Sanitizer& s) {
        s.driver_call_enter({.thread = callback.id, .entry_point = "cuMemAlloc", .context = callback.context});
        s.driver_call_exit({.thread = callback.id, .entry_point = "cuMemAlloc", .result = kCudaErrorNotPermitted,
                            .result_name = "CUDA_ERROR_NOT_PERMITTED"});
      });
    }
  }
  // Everything let go, as a process that ends normally does, then the end of the run.
  for (CallbackThread& callback : callbacks) {
    for (std::uint64_t lock : callback.locks) both.send([&](Sanitizer& s) { s.lock_release(callback.id, lock); });
    for (; callback.depth > 0; --callback.depth) both.send([&](Sanitizer& s) { s.host_function_end(callback.id); });
  }
  both.send([](Sanitizer& s) { s.finish(); });
  EXPECT_EQ(findings(both.fast()), findings(both.plain())) << "seed " << seed;
  std::set<std::string> checkers;
  for (const Report& report : both.plain().reports()) checkers.insert(std::string(to_string(report.checker)));
  return checkers;
}

TEST(FastPathsReference, RandomEventStreamsReportWhatThePlainSanitizerReports) {
  std::map<std::string, int> seeds_with;  // checker -> seeds that found something of it
  for (unsigned seed = 1; seed <= 500; ++seed) {
    for (const std::string& checker : run_fast_paths_seed(seed)) ++seeds_with[checker];
    if (::testing::Test::HasFailure()) return;
  }
  // The streams reach what the shortcuts could get wrong: cycles, calls inside host functions, waits
  // with the GIL held, each in many seeds.
  for (const char* checker : {"lock-order-cycle", "cuda-call-in-host-function", "gil-held-blocking-call"}) {
    EXPECT_GE(seeds_with[checker], 50) << checker;
  }
}

}  // namespace
}  // namespace gilsan::checkers::testing

// The board across processes: a forked child writes through the writer API (after setting
// GILSAN_BOARD, as the runner's child would find it), the parent reads with BoardReader. Every writer
// call happens in a child, so each test starts with a fresh, unattached writer.
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <vector>

#include "harness/board/board_reader.h"
#include "harness/board/board_region.h"
#include "harness/board/board_writer.h"
#include "tests/board/board_child.h"

namespace gilsan::board {
namespace {

TEST(BoardRegion, PrivateDirectoryAndFileRemovedAfterwards) {
  std::string directory;
  std::string path;
  {
    BoardRegion region = BoardRegion::create(BoardRegionOptions{::testing::TempDir(), 2000});
    directory = region.directory();
    path = region.path();
    struct stat info {};
    ASSERT_EQ(::stat(directory.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    ASSERT_EQ(::stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    EXPECT_EQ(static_cast<std::size_t>(info.st_size), sizeof(Board));
    EXPECT_EQ(region.env_entry(), "GILSAN_BOARD=" + path);
    EXPECT_EQ(region.board().header.magic, kMagic);
  }
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_NE(::access(directory.c_str(), F_OK), 0);
}

TEST(BoardRegion, UnusableDirectoryIsAClearError) {
  try {
    BoardRegion::create(BoardRegionOptions{"/nonexistent/gilsan", 0});
    FAIL() << "no error";
  } catch (const BoardError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/gilsan/gilsan-board-"), std::string::npos) << error.what();
  }
}

TEST(BoardAcrossFork, ParentReadsWhatTheChildWrote) {
  BoardRegion region = BoardRegion::create();
  int code = run_child(region.path(), [] {
    if (!attach()) return 10;
    set_role(Role::Main);
    set_gil_state(GilState::Holds);
    begin_host_function(host_function(3, 0x10));
    enter_call("cuStreamSynchronize", 0x30, 0x10, 0);
    enter_call("cuEventSynchronize", 0x30, 0, 0x50);
    exit_call();
    note_lock_acquired(0x99, "results lock");
    begin_lock_wait(0x98, "other lock");
    note_progress(ProgressKind::DeviceWork);
    return static_cast<int>(::getpid() & 0x7f);
  });
  BoardReader reader(region.board());
  auto threads = reader.threads();
  ASSERT_EQ(threads.size(), 1u);
  const ThreadRecord& thread = threads[0];
  EXPECT_EQ(thread.tid & 0x7f, code);
  EXPECT_TRUE(thread.consistent);
  EXPECT_EQ(thread.role, Role::Main);  // begin_host_function keeps a role that was said
  EXPECT_EQ(thread.gil_state, GilState::Holds);
  ASSERT_EQ(thread.calls.size(), 1u);
  EXPECT_EQ(thread.calls[0].entry_point, "cuStreamSynchronize");
  EXPECT_EQ(thread.calls[0].context, 0x30u);
  EXPECT_EQ(thread.calls[0].stream, 0x10u);
  EXPECT_EQ(thread.calls[0].gil_at_entry, GilState::Unknown);  // no Python in this process
  EXPECT_GT(thread.calls[0].entered_ns, 0u);
  ASSERT_EQ(thread.host_functions.size(), 1u);
  EXPECT_EQ(thread.host_functions[0].id, 3u);
  EXPECT_EQ(thread.host_functions[0].kind, HostFunctionKind::Python);
  EXPECT_EQ(thread.host_functions[0].description, "scenario.py:14 cb");
  ASSERT_EQ(thread.held_locks.size(), 1u);
  EXPECT_EQ(thread.held_locks[0].name, "results lock");
  ASSERT_TRUE(thread.waiting_lock.has_value());
  EXPECT_EQ(thread.waiting_lock->id, 0x98u);
  ProgressCounters progress = reader.progress();
  EXPECT_EQ(progress[static_cast<std::size_t>(ProgressKind::DriverCall)], 1u);
  EXPECT_EQ(progress[static_cast<std::size_t>(ProgressKind::DeviceWork)], 1u);
  EXPECT_EQ(thread.progress[static_cast<std::size_t>(ProgressKind::DriverCall)], 1u);
}

TEST(BoardAcrossFork, HostFunctionsMarkTheCallbackThreadAndLeaveThePendingTable) {
  BoardRegion region = BoardRegion::create();
  ASSERT_EQ(run_child(region.path(), [] {
              note_host_function_enqueued(host_function(1, 0x10));
              note_host_function_enqueued(host_function(2, 0x20));
              note_host_function_enqueued(host_function(3, 0x20));
              note_host_function_dropped(3, "gilsan");
              note_host_function_dropped(2, "someone-else");  // another writer's id space: no effect
              std::thread callback([] { begin_host_function(host_function(1, 0x10)); });
              callback.join();
              note_event_recorded(0x50, 0x10, 0x30);
              note_event_recorded(0x50, 0x20, 0x30);  // recorded again: the latest stream counts
              return 0;
            }),
            0);
  BoardReader reader(region.board());
  auto pending = reader.pending_host_functions();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].id, 2u);
  EXPECT_EQ(pending[0].stream, 0x20u);
  auto events = reader.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].stream, 0x20u);
  bool found_callback = false;
  for (const ThreadRecord& thread : reader.threads()) {
    if (!thread.host_functions.empty()) {
      found_callback = true;
      EXPECT_EQ(thread.role, Role::DriverCallback);
      EXPECT_EQ(thread.role_context, 0x30u);
    }
  }
  EXPECT_TRUE(found_callback);
}

TEST(BoardWithoutEnvironment, EveryWriteIsANoOp) {
  EXPECT_EQ(run_child("", [] {
              set_role(Role::Main);
              enter_call("cuStreamSynchronize", 1, 2, 3);
              exit_call();
              note_progress(ProgressKind::Python);
              return (attach() || enabled() || install_stack_sampler() != -1 || install_crash_reporter()) ? 1 : 0;
            }),
            0);
}

TEST(BoardWithoutEnvironment, AFileThatIsNotABoardIsIgnored) {
  std::string path = ::testing::TempDir() + "/not-a-board";
  std::ofstream(path) << std::string(sizeof(Board) + 16, 'x');
  EXPECT_EQ(run_child(path, [] { return attach() ? 1 : 0; }), 0);
  std::remove(path.c_str());
}

TEST(BoardAcrossFork, OnlyTheFirstProcessWrites) {
  BoardRegion region = BoardRegion::create();
  ASSERT_EQ(run_child(region.path(), [] {
              set_role(Role::Main);
              // A fork of the writer (e.g. a scenario's subprocess) goes silent.
              pid_t grandchild = ::fork();
              if (grandchild == 0) {
                set_role(Role::Python);
                enter_call("cuGrandchild", 0, 0, 0);
                ::_exit(enabled() ? 1 : 0);
              }
              int status = 0;
              ::waitpid(grandchild, &status, 0);
              return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
            }),
            0);
  // A second, unrelated process that inherited GILSAN_BOARD cannot attach either.
  EXPECT_EQ(run_child(region.path(), [] { return attach() ? 1 : 0; }), 0);
  BoardReader reader(region.board());
  auto threads = reader.threads();
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads[0].role, Role::Main);
  EXPECT_TRUE(threads[0].calls.empty());
}

TEST(BoardAcrossFork, TwoCopiesOfTheWriterShareOneSlotPerThread) {
  BoardRegion region = BoardRegion::create();
  ASSERT_EQ(run_child(region.path(), [] {
              void* library = ::dlopen(GILSAN_TEST_HOOKS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
              if (library == nullptr) return 10;
              auto other_enter = reinterpret_cast<void (*)(const char*, unsigned long long)>(
                  ::dlsym(library, "gilsan_test_enter_call"));
              auto other_role = reinterpret_cast<void (*)()>(::dlsym(library, "gilsan_test_set_role_python"));
              if (other_enter == nullptr || other_role == nullptr) return 11;
              enter_call("cuFromThisCopy", 0, 1, 0);
              other_enter("cuFromTheOtherCopy", 2);
              std::thread python([&] { other_role(); });
              python.join();
              return 0;
            }),
            0);
  BoardReader reader(region.board());
  auto threads = reader.threads();
  ASSERT_EQ(threads.size(), 2u);
  const ThreadRecord& main_thread = threads[0].calls.empty() ? threads[1] : threads[0];
  const ThreadRecord& python = threads[0].calls.empty() ? threads[0] : threads[1];
  ASSERT_EQ(main_thread.calls.size(), 2u);
  EXPECT_EQ(main_thread.calls[0].entry_point, "cuFromThisCopy");
  EXPECT_EQ(main_thread.calls[1].entry_point, "cuFromTheOtherCopy");
  EXPECT_EQ(python.role, Role::Python);
}

// A name is copied into the board once per place and then known by its address (PackedText::
// store_literal): whichever copy of the writer wrote last, each call shows its own name, the same
// name entered again included.
TEST(BoardAcrossFork, AGivenNameIsCopiedOnceYetEachCallShowsItsOwn) {
  BoardRegion region = BoardRegion::create();
  BoardReader reader(region.board());
  ASSERT_EQ(run_child(region.path(), [] {
              void* library = ::dlopen(GILSAN_TEST_HOOKS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
              if (library == nullptr) return 10;
              auto other_enter = reinterpret_cast<void (*)(const char*, unsigned long long)>(
                  ::dlsym(library, "gilsan_test_enter_call"));
              auto other_exit = reinterpret_cast<void (*)()>(::dlsym(library, "gilsan_test_exit_call"));
              if (other_enter == nullptr || other_exit == nullptr) return 11;
              static const char kLaunch[] = "cuLaunchHostFunc";
              enter_call(kLaunch, 0, 1, 0);
              exit_call();
              other_enter("cuStreamSynchronize", 2);  // the same place, from the other copy
              other_exit();
              enter_call(kLaunch, 0, 3, 0);  // this copy's name again: it must replace the other's
              return 0;
            }),
            0);
  auto threads = reader.threads();
  ASSERT_EQ(threads.size(), 1u);
  ASSERT_EQ(threads[0].calls.size(), 1u);
  EXPECT_EQ(threads[0].calls[0].entry_point, "cuLaunchHostFunc");
  EXPECT_EQ(threads[0].calls[0].stream, 3u);
}

TEST(PackedText, ALiteralIsCopiedOnlyWhenAnotherTextIsInPlace) {
  static PackedText<2> text{};
  static const char kFirst[] = "first";
  text.store_literal(kFirst);
  EXPECT_EQ(text.load(), "first");
  text.words[0].store(0);  // what a skipped copy would leave alone
  text.store_literal(kFirst);
  EXPECT_EQ(text.load(), "") << "the same address again is not copied";
  text.store("copied");
  EXPECT_EQ(text.load(), "copied");
  text.store_literal(kFirst);
  EXPECT_EQ(text.load(), "first") << "after a copied text, a literal is copied again";
  text.store_literal(nullptr);
  EXPECT_EQ(text.load(), "");
  text.store_literal("a name longer than fifteen bytes");
  EXPECT_EQ(text.load(), "a name longer t") << "truncated to the capacity";
}

TEST(BoardAcrossFork, SlotsOfExitedThreadsAreReused) {
  BoardRegion region = BoardRegion::create();
  constexpr int kThreads = static_cast<int>(kMaxThreads) + 64;
  ASSERT_EQ(run_child(region.path(), [] {
              for (int i = 0; i < kThreads; ++i) {
                std::thread worker([] { set_role(Role::OtherNative); });
                worker.join();
              }
              return 0;
            }),
            0);
  BoardReader reader(region.board());
  EXPECT_EQ(reader.read().lost_writes, 0u);
  EXPECT_LE(reader.threads().size(), kMaxThreads);
}

// The seqlock under fire: a child rewrites its call records as fast as it can from two threads, each
// record's fields all derived from one counter; the parent never sees a mixed record.
TEST(BoardAcrossFork, ReadsAreConsistentUnderConcurrentWrites) {
  BoardRegion region = BoardRegion::create();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv(kBoardEnvironmentVariable, region.path().c_str(), 1);
    auto writer = [](std::uint64_t base) {
      // Names outlive their calls (enter_call's contract): a fixed set, each naming its own handle.
      std::vector<std::string> names;
      for (std::uint64_t k = 0; k < 64; ++k) names.push_back("cu" + std::to_string(base + k));
      std::string outer = "cu" + std::to_string(base);
      enter_call(outer.c_str(), base, base, base);  // stays open: every consistent read has a record
      auto stop = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
      for (std::uint64_t i = 0; std::chrono::steady_clock::now() < stop; ++i) {
        if (i % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // let reads in
        const std::uint64_t handle = base + i % names.size();
        const char* name = names[i % names.size()].c_str();
        enter_call(name, handle, handle, handle);
        exit_call();
        enter_call(name, handle, handle, handle);
        exit_call();
      }
    };
    std::thread one(writer, 1);
    std::thread two(writer, 1'000'000'000);
    one.join();
    two.join();
    ::_exit(0);
  }
  BoardReader reader(region.board());
  std::size_t checked = 0;
  // Reads for as long as the child writes (its 400 ms), not a fixed number of rounds: 20,000 rounds
  // take tens of milliseconds, which a loaded CI machine can spend before the child's writers start.
  int status = 0;
  bool child_running = true;
  for (int round = 0; round < 20000 || child_running; ++round) {
    if (child_running && round % 64 == 0 && ::waitpid(pid, &status, WNOHANG) == pid) child_running = false;
    for (const ThreadRecord& thread : reader.threads()) {
      if (!thread.consistent) continue;
      for (const CallRecord& call : thread.calls) {
        ASSERT_EQ(call.context, call.stream);
        ASSERT_EQ(call.stream, call.event);
        ASSERT_EQ(call.entry_point, "cu" + std::to_string(call.context));
        ++checked;
      }
    }
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace gilsan::board

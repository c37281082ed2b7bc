// The interposer in a real process: lock_holder_program runs with libgilsan_native_locks.so preloaded
// (the runner's child_preload, as a scenario child gets it) and GILSAN_BOARD set; the test reads what
// its waiting threads wrote on the board.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/board/board_reader.h"
#include "harness/board/board_region.h"
#include "harness/runner/native_locks_preload.h"

extern char** environ;

namespace gilsan {
namespace {

using board::LockKind;
using board::ThreadRecord;

// The program, spoken to through its stdin and stdout.
class Program {
 public:
  Program(const std::string& mode, const std::string& board_path) {
    int to_child[2];
    int from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string text(*entry);
      if (!text.starts_with("LD_PRELOAD=") && !text.starts_with("GILSAN_BOARD=") && !text.starts_with("ASAN_OPTIONS="))
        environment.push_back(text);
    }
    const std::optional<std::string> preload = child_preload(std::getenv("LD_PRELOAD"));
    if (!preload) throw std::runtime_error("no interposer library");
    environment.push_back("LD_PRELOAD=" + *preload);
    // As the runner does: the program of an ASan build has its runtime behind the preloaded interposer.
    const char* asan_options = std::getenv("ASAN_OPTIONS");
    environment.push_back(std::string("ASAN_OPTIONS=") + kPreloadAheadOfAsanOption +
                          (asan_options != nullptr ? std::string(":") + asan_options : std::string()));
    if (!board_path.empty()) environment.push_back("GILSAN_BOARD=" + board_path);
    std::vector<char*> env_pointers;
    for (std::string& text : environment) env_pointers.push_back(text.data());
    env_pointers.push_back(nullptr);
    std::string program = GILSAN_LOCK_HOLDER_PROGRAM;
    std::string mode_argument = mode;
    char* arguments[] = {program.data(), mode_argument.data(), nullptr};
    const int spawned = ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, arguments, env_pointers.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    to_child_ = ::fdopen(to_child[1], "w");
    from_child_ = ::fdopen(from_child[0], "r");
    if (spawned != 0) throw std::runtime_error("posix_spawn: " + std::to_string(spawned));
  }
  ~Program() {
    if (to_child_ != nullptr) std::fclose(to_child_);
    if (from_child_ != nullptr) std::fclose(from_child_);
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // The next line the program said, without its newline ("" at its end).
  std::string read_line() {
    char buffer[256];
    if (std::fgets(buffer, sizeof(buffer), from_child_) == nullptr) return {};
    std::string line(buffer);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  }
  // The number after `word ` in the next line, which must start with it.
  int read_number(const std::string& word) {
    const std::string line = read_line();
    EXPECT_TRUE(line.starts_with(word + " ")) << "expected '" << word << " N', got '" << line << "'";
    return line.starts_with(word + " ") ? std::atoi(line.c_str() + word.size() + 1) : 0;
  }
  void go_on() {
    std::fputs("go\n", to_child_);
    std::fflush(to_child_);
  }
  int exit_code() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::FILE* to_child_ = nullptr;
  std::FILE* from_child_ = nullptr;
};

std::optional<ThreadRecord> record_of(board::BoardReader& reader, int tid) {
  for (ThreadRecord& record : reader.threads()) {
    if (record.tid == tid) return record;
  }
  return std::nullopt;
}

// The board's record of `tid` once `holds` says it is what the test waits for (5 s at most).
std::optional<ThreadRecord> await_record(board::BoardReader& reader, int tid,
                                         const std::function<bool(const ThreadRecord&)>& holds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::optional<ThreadRecord> record = record_of(reader, tid); record && holds(*record)) return record;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::nullopt;
}

bool waits_natively(const ThreadRecord& record) { return record.waiting_lock && record.waiting_lock->native(); }

TEST(NativeLockInterposer, AWaiterRecordsTheMutexAndItsHolder) {
  board::BoardRegion region = board::BoardRegion::create();
  board::BoardReader reader(region.board());
  Program program("contended-mutex", region.path());
  const int holder = program.read_number("holder");
  const int waiter = program.read_number("waiter");
  const std::optional<ThreadRecord> record = await_record(reader, waiter, waits_natively);
  ASSERT_TRUE(record) << "the waiter never wrote its wait";
  EXPECT_EQ(record->waiting_lock->kind, LockKind::NativeMutex);
  EXPECT_EQ(record->waiting_lock->holder_tid, holder);
  EXPECT_NE(record->waiting_lock->id, 0u);
  EXPECT_NE(record->waiting_lock->call_site, 0u);
  EXPECT_GT(record->waiting_lock->since_ns, 0u);
  // Uncontended, the holder never wrote anything: it has no slot at all.
  EXPECT_FALSE(record_of(reader, holder));
  program.go_on();
  EXPECT_EQ(program.read_line(), "done");
  EXPECT_EQ(program.exit_code(), 0);
  const std::optional<ThreadRecord> after = record_of(reader, waiter);
  EXPECT_TRUE(!after || !after->waiting_lock) << "the wait stays on the board after the lock was taken";
}

TEST(NativeLockInterposer, TheHolderIsReadAgainWhenTheMutexChangesHands) {
  board::BoardRegion region = board::BoardRegion::create();
  board::BoardReader reader(region.board());
  Program program("handover", region.path());
  const int holder = program.read_number("holder");
  const int first = program.read_number("waiter");
  const int second = program.read_number("waiter");
  for (int waiter : {first, second}) {
    ASSERT_TRUE(await_record(reader, waiter, [holder](const ThreadRecord& record) {
      return waits_natively(record) && record.waiting_lock->holder_tid == holder;
    })) << "waiter " << waiter << " never named holder " << holder;
  }
  program.go_on();  // the holder lets go; one waiter gets the mutex and keeps it
  const int new_holder = program.read_number("got");
  ASSERT_TRUE(new_holder == first || new_holder == second) << new_holder;
  const int still_waiting = new_holder == first ? second : first;
  EXPECT_TRUE(await_record(reader, still_waiting, [new_holder](const ThreadRecord& record) {
    return waits_natively(record) && record.waiting_lock->holder_tid == new_holder;
  })) << "the remaining waiter never named the new holder " << new_holder;
  program.go_on();
  EXPECT_EQ(program.read_number("got"), still_waiting);
  program.go_on();
  EXPECT_EQ(program.read_line(), "done");
  EXPECT_EQ(program.exit_code(), 0);
}

TEST(NativeLockInterposer, AnRwlockWaitSaysWhetherItReadsOrWritesAndNamesTheWriter) {
  for (const auto& [mode, kind] : {std::pair{"read-behind-write", LockKind::NativeReadLock},
                                   std::pair{"write-behind-write", LockKind::NativeWriteLock}}) {
    SCOPED_TRACE(mode);
    board::BoardRegion region = board::BoardRegion::create();
    board::BoardReader reader(region.board());
    Program program(mode, region.path());
    const int holder = program.read_number("holder");
    const int waiter = program.read_number("waiter");
    const std::optional<ThreadRecord> record = await_record(reader, waiter, waits_natively);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->waiting_lock->kind, kind);
    EXPECT_EQ(record->waiting_lock->holder_tid, holder);
    program.go_on();
    EXPECT_EQ(program.read_line(), "done");
    EXPECT_EQ(program.exit_code(), 0);
  }
}

TEST(NativeLockInterposer, AConditionWaitIsRecordedForAsLongAsItLasts) {
  board::BoardRegion region = board::BoardRegion::create();
  board::BoardReader reader(region.board());
  Program program("condition-wait", region.path());
  const int waiter = program.read_number("waiter");
  const std::optional<ThreadRecord> record = await_record(reader, waiter, waits_natively);
  ASSERT_TRUE(record) << "the waiter never wrote its wait";
  EXPECT_EQ(record->waiting_lock->kind, LockKind::NativeCondition);
  EXPECT_TRUE(record->waiting_lock->notification());
  EXPECT_EQ(record->waiting_lock->holder_tid, 0);  // nobody holds a condition variable
  EXPECT_NE(record->waiting_lock->call_site, 0u);
  program.go_on();
  EXPECT_EQ(program.read_line(), "done");
  EXPECT_EQ(program.exit_code(), 0);
  const std::optional<ThreadRecord> after = record_of(reader, waiter);
  EXPECT_TRUE(!after || !after->waiting_lock) << "the wait stays on the board after it ended";
}

TEST(NativeLockInterposer, LocksBehaveAsWithoutItWithAndWithoutABoard) {
  board::BoardRegion region = board::BoardRegion::create();
  for (const std::string& board_path : {region.path(), std::string()}) {
    SCOPED_TRACE(board_path.empty() ? "no board" : "board");
    Program program("semantics", board_path);
    EXPECT_EQ(program.exit_code(), 0);
  }
}

// A sanitizer's observer is told of every acquire that may wait, of a kept lock's failure and release,
// and of nothing it takes itself; the locks behave as they do without it.
TEST(NativeLockInterposer, AnObserverIsToldOfEachKeptLocksAcquireAndEnd) {
  Program program("observed", "");
  EXPECT_EQ(program.exit_code(), 0);
}

TEST(NativeLockInterposer, ThePreloadPutsTheInterposerBeforeTheCallersLibraries) {
  const std::optional<std::string> preload = child_preload("/opt/caller.so");
  ASSERT_TRUE(preload);
  const std::string interposer = native_locks_library_path();
  ASSERT_FALSE(interposer.empty());
  EXPECT_TRUE(preload->ends_with(interposer + ":/opt/caller.so")) << *preload;
  EXPECT_TRUE(child_preload(nullptr)->ends_with(interposer)) << *child_preload(nullptr);
}

}  // namespace
}  // namespace gilsan

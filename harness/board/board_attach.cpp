// Mapping the board (once per copy of the writer) and claiming slots (once per thread).
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "harness/board/board_writer.h"
#include "harness/board/board_writer_state.h"

namespace gilsan::board::detail {
namespace {

enum AttachState : int { kUntried = 0, kAttaching = 1, kOn = 2, kOff = 3 };

// Per copy of the writer. A forked child turns its copies off (see on_fork_child).
std::atomic<int> g_attach_state{kUntried};
std::atomic<Board*> g_board{nullptr};

// PyGILState_Check and Py_IsInitialized, found in the process when Python is loaded.
using PyIntFunction = int (*)();
using PyPointerFunction = void* (*)();
std::atomic<PyIntFunction> g_gil_check{nullptr};
std::atomic<PyIntFunction> g_python_initialized{nullptr};
std::atomic<PyPointerFunction> g_this_thread_state{nullptr};

// Owned by the thread; reset by a fork because the child's thread is not the parent's. Initial-exec:
// the writer is linked into dlopen'd libraries (the simulated driver, the injection library), where a
// default thread_local is dynamic TLS, which LeakSanitizer's tracer cannot walk (it crashes), and
// whose first touch may allocate, which a signal handler must not do.
[[gnu::tls_model("initial-exec")]] thread_local ThreadSlot* t_slot = nullptr;

void on_fork_child() {
  g_board.store(nullptr, std::memory_order_release);
  g_attach_state.store(kOff, std::memory_order_release);
}

std::uint64_t program_image() {
  std::uint64_t image = 0;
  if (const auto* random = reinterpret_cast<const unsigned char*>(::getauxval(AT_RANDOM)); random != nullptr) {
    std::memcpy(&image, random, sizeof(image));
  }
  return image == 0 ? 1 : image;
}

void forget_all_text_sources(Board& board) {
  for (ThreadSlot& slot : board.slots) forget_text_sources(slot);
  for (PendingHostFunctionSlot& entry : board.pending) forget_text_sources(entry.info);
}

bool valid_layout(const Board& candidate, std::size_t file_size) {
  const BoardHeader& header = candidate.header;
  return file_size >= sizeof(Board) && header.magic == kMagic &&
         header.layout_version == kLayoutVersion && header.slot_count == kMaxThreads &&
         header.total_size == sizeof(Board);
}

Board* map_board(const char* path) {
  int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat info {};
  void* address = MAP_FAILED;
  if (::fstat(fd, &info) == 0 && static_cast<std::size_t>(info.st_size) >= sizeof(Board)) {
    address = ::mmap(nullptr, sizeof(Board), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  ::close(fd);
  if (address == MAP_FAILED) return nullptr;
  auto* candidate = static_cast<Board*>(address);
  if (!valid_layout(*candidate, static_cast<std::size_t>(info.st_size))) {
    ::munmap(address, sizeof(Board));
    return nullptr;
  }
  // Only the board's first process writes: a descendant that inherited GILSAN_BOARD stays off.
  int owner = 0;
  int me = static_cast<int>(::getpid());
  if (!candidate->header.owner_pid.compare_exchange_strong(owner, me) && owner != me) {
    ::munmap(address, sizeof(Board));
    return nullptr;
  }
  // The same process after an exec is a new program image: the addresses its texts were copied from
  // (PackedText::store_literal) mean nothing in it. The kernel's AT_RANDOM bytes are new at every exec.
  const std::uint64_t image = program_image();
  std::uint64_t known = candidate->header.owner_image.load(std::memory_order_acquire);
  if (known != image && candidate->header.owner_image.compare_exchange_strong(known, image)) {
    if (known != 0) forget_all_text_sources(*candidate);
  }
  return candidate;
}

// Done once, at attach: dlsym may take the loader's lock and allocate, which later writes must not.
// Python is loaded by then in every process gilsan writes from (the embedded runner links libpython;
// an extension module or the CUPTI library is loaded into a running interpreter).
void look_up_python() {
  auto initialized = reinterpret_cast<PyIntFunction>(::dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  auto check = reinterpret_cast<PyIntFunction>(::dlsym(RTLD_DEFAULT, "PyGILState_Check"));
  g_this_thread_state.store(reinterpret_cast<PyPointerFunction>(::dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState")),
                            std::memory_order_relaxed);
  if (initialized != nullptr && check != nullptr) {
    g_python_initialized.store(initialized, std::memory_order_relaxed);
    g_gil_check.store(check, std::memory_order_release);
  }
}

// Writes a decimal number; for building /proc paths without snprintf inside signal handlers.
char* append_decimal(char* out, int value) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 && n < 16);
  while (n > 0) *out++ = digits[--n];
  *out = '\0';
  return out;
}

bool thread_alive(int tid) {
  char path[48] = "/proc/self/task/";
  append_decimal(path + 16, tid);
  return ::access(path, F_OK) == 0;
}

void reset_slot(ThreadSlot& slot) {
  SlotWrite write(slot);
  slot.pthread_id.store(static_cast<std::uint64_t>(::pthread_self()), kPublish);
  slot.role.store(static_cast<std::uint32_t>(Role::Unknown), kPublish);
  slot.role_context.store(0, kPublish);
  slot.gil_state.store(static_cast<std::uint32_t>(GilState::Unknown), kPublish);
  slot.gil_changed_ns.store(0, kPublish);
  slot.call_depth.store(0, kPublish);
  slot.host_function_depth.store(0, kPublish);
  slot.waiting_for_lock.store(0, kPublish);
  slot.held_lock_count.store(0, kPublish);
  slot.frame_count.store(0, kPublish);
  slot.stack_signal.store(0, kPublish);
  // The slot's last thread is gone: its texts are copied afresh rather than trusted by address.
  detail::forget_text_sources(slot);
}

}  // namespace

Board* board() {
  int state = g_attach_state.load(std::memory_order_acquire);
  if (state == kOn) return g_board.load(std::memory_order_acquire);
  if (state != kUntried) return nullptr;
  return attach() ? g_board.load(std::memory_order_acquire) : nullptr;
}

Board* attached_board() {
  if (g_attach_state.load(std::memory_order_acquire) != kOn) return nullptr;
  return g_board.load(std::memory_order_acquire);
}

int current_tid() { return static_cast<int>(::syscall(SYS_gettid)); }

std::uint64_t now_ns() { return monotonic_ns(); }

ThreadSlot* slot_for_thread(Board& board, int tid) {
  for (ThreadSlot& slot : board.slots) {
    if (slot.tid.load(std::memory_order_acquire) == tid) return &slot;
  }
  for (ThreadSlot& slot : board.slots) {
    int expected = 0;
    if (slot.tid.load(std::memory_order_relaxed) == 0 &&
        slot.tid.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) {
      reset_slot(slot);
      return &slot;
    }
  }
  // Full: take over the slot of a thread that exited. Exited threads keep their slots until then
  // because their last state is evidence (a callback thread that died inside a host function).
  for (ThreadSlot& slot : board.slots) {
    int owner = slot.tid.load(std::memory_order_acquire);
    if (owner != 0 && !thread_alive(owner) &&
        slot.tid.compare_exchange_strong(owner, tid, std::memory_order_acq_rel)) {
      reset_slot(slot);
      return &slot;
    }
  }
  board.header.lost_writes.value.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

ThreadSlot* my_slot() {
  // The board first: with no board (a program outside gilsan run) every observation ends on this one
  // load, before the thread-local (a call into the TLS resolver from a shared library). After a fork
  // the thread-local survives in the child, but the board is off there by then.
  Board* mapped = board();
  if (mapped == nullptr) return nullptr;
  if (t_slot == nullptr) t_slot = slot_for_thread(*mapped, current_tid());
  return t_slot;
}

GilState probe_gil_state() {
  PyIntFunction check = g_gil_check.load(std::memory_order_acquire);
  if (check == nullptr) return GilState::Unknown;
  PyIntFunction initialized = g_python_initialized.load(std::memory_order_relaxed);
  if (initialized() == 0) return GilState::Unknown;
  return check() != 0 ? GilState::Holds : GilState::Released;
}

GilState sample_gil_state() {
  PyPointerFunction this_thread_state = g_this_thread_state.load(std::memory_order_relaxed);
  if (this_thread_state == nullptr || g_gil_check.load(std::memory_order_acquire) == nullptr) return GilState::Unknown;
  if (g_python_initialized.load(std::memory_order_relaxed)() == 0 || this_thread_state() == nullptr) return GilState::Unknown;
  return probe_gil_state();
}

}  // namespace gilsan::board::detail

namespace gilsan::board {

bool attach() {
  using namespace detail;
  int expected = kUntried;
  if (!g_attach_state.compare_exchange_strong(expected, kAttaching, std::memory_order_acq_rel)) {
    return expected == kOn;
  }
  const char* path = std::getenv(kBoardEnvironmentVariable);
  Board* mapped = (path != nullptr && path[0] != '\0') ? map_board(path) : nullptr;
  if (mapped == nullptr) {
    g_attach_state.store(kOff, std::memory_order_release);
    return false;
  }
  ::pthread_atfork(nullptr, nullptr, &on_fork_child);
  look_up_python();
  g_board.store(mapped, std::memory_order_release);
  g_attach_state.store(kOn, std::memory_order_release);
  return true;
}

bool enabled() { return detail::board() != nullptr; }

}  // namespace gilsan::board

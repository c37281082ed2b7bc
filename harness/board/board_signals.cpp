// Signal handlers in the child: the native-stack sampler the parent triggers with tgkill, and the
// crash reporter. Both write return addresses from glibc's backtrace() into the thread's slot.
//
// backtrace() is not formally async-signal-safe: its first call loads libgcc_s (malloc, locks), so we
// call it once at install time. Later calls walk the stack with the unwinder, which on glibc >= 2.35
// with libgcc >= 12 finds unwind tables without locks (_dl_find_object). docs/watchdog.md lists the
// remaining limits.
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>

#include "harness/board/board_writer.h"
#include "harness/board/board_writer_state.h"

namespace gilsan::board {
namespace {

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

std::atomic<int> g_sampler_signal{0};
std::atomic<bool> g_crash_reporter_installed{false};
struct sigaction g_previous_crash_action[NSIG];

std::uint64_t interrupted_pc(void* ucontext) {
  if (ucontext == nullptr) return 0;
  auto* context = static_cast<ucontext_t*>(ucontext);
#if defined(__x86_64__)
  return static_cast<std::uint64_t>(context->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uint64_t>(context->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}

void stack_sampler_handler(int signal_number, siginfo_t*, void* ucontext) {
  int saved_errno = errno;
  Board* mapped = detail::attached_board();
  if (mapped != nullptr) {
    ThreadSlot* slot = detail::slot_for_thread(*mapped, detail::current_tid());
    if (slot != nullptr) {
      std::uint64_t request = mapped->header.stack_request.load(std::memory_order_acquire);
      detail::write_native_stack(*slot, signal_number, ucontext, request, detail::sample_gil_state());
    }
  }
  errno = saved_errno;
}

void wait_for_parent(const BoardHeader& header) {
  struct timespec one_millisecond {0, 1000000};
  for (std::uint32_t waited = 0; waited < header.crash_wait_ms; ++waited) {
    if (header.crash_acknowledged.load(std::memory_order_acquire) != 0) return;
    ::nanosleep(&one_millisecond, nullptr);
  }
}

void crash_handler(int signal_number, siginfo_t* info, void* ucontext) {
  int saved_errno = errno;
  Board* mapped = detail::attached_board();
  if (mapped != nullptr) {
    BoardHeader& header = mapped->header;
    int tid = detail::current_tid();
    int no_crash_yet = 0;
    // Only the first crashing thread reports and waits; later ones go straight to the default action.
    if (header.crash_tid.compare_exchange_strong(no_crash_yet, tid, std::memory_order_acq_rel)) {
      auto address = info != nullptr ? reinterpret_cast<std::uintptr_t>(info->si_addr) : 0;
      header.crash_address.store(address, std::memory_order_relaxed);
      ThreadSlot* slot = detail::slot_for_thread(*mapped, tid);
      if (slot != nullptr) detail::write_native_stack(*slot, signal_number, ucontext, 0, GilState::Unknown);
      header.crash_signal.store(signal_number, std::memory_order_release);
      wait_for_parent(header);
    }
  }
  // Hand the signal to whoever had it before us (faulthandler, or the default action). The signal is
  // blocked while we run, so raise() takes effect when we return, after the previous action is back.
  struct sigaction previous = g_previous_crash_action[signal_number];
  if (previous.sa_handler == SIG_IGN) previous.sa_handler = SIG_DFL;
  ::sigaction(signal_number, &previous, nullptr);
  ::raise(signal_number);
  errno = saved_errno;
}

void give_thread_an_alternate_stack() {
  stack_t current {};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return;
  constexpr std::size_t kSize = std::size_t{64} * 1024;
  void* memory = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;
  stack_t alternate {};
  alternate.ss_sp = memory;
  alternate.ss_size = kSize;
  if (::sigaltstack(&alternate, nullptr) != 0) ::munmap(memory, kSize);
}

}  // namespace

namespace detail {

void write_native_stack(ThreadSlot& slot, int signal_number, void* ucontext, std::uint64_t answer, GilState gil) {
  constexpr int kExtra = 16;  // room for the handler's own frames, which we skip
  void* addresses[kMaxFrames + kExtra];
  int count = ::backtrace(addresses, static_cast<int>(kMaxFrames + kExtra));
  // Start at the interrupted instruction: everything before it is this handler and the kernel's
  // signal trampoline. Without a machine context to match, skip only our own frame.
  std::uint64_t pc = interrupted_pc(ucontext);
  int first = count > 0 ? 1 : 0;
  for (int i = 0; i < count; ++i) {
    if (reinterpret_cast<std::uintptr_t>(addresses[i]) == pc) {
      first = i;
      break;
    }
  }
  std::uint32_t stored = 0;
  std::uint64_t before = slot.stack_seq.load(std::memory_order_relaxed);
  slot.stack_seq.store(before + 1, std::memory_order_relaxed);
  for (int i = first; i < count && stored < kMaxFrames; ++i) {
    slot.frames[stored++].store(reinterpret_cast<std::uintptr_t>(addresses[i]), kPublish);
  }
  slot.frame_count.store(stored, kPublish);
  slot.stack_signal.store(signal_number, kPublish);
  slot.stack_answer.store(answer, kPublish);
  slot.stack_gil.store(static_cast<std::uint32_t>(gil), kPublish);
  slot.stack_seq.store(before + 2, std::memory_order_release);
}

}  // namespace detail

int install_stack_sampler(int signal_number) {
  Board* mapped = detail::board();
  if (mapped == nullptr) return -1;
  if (signal_number == 0) signal_number = SIGRTMIN + 6;  // install_crash_reporter masks this default
  void* warm_up[4];
  ::backtrace(warm_up, 4);
  struct sigaction action {};
  action.sa_sigaction = &stack_sampler_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (::sigaction(signal_number, &action, nullptr) != 0) return -1;
  g_sampler_signal.store(signal_number, std::memory_order_relaxed);
  mapped->header.stack_sample_signal.store(signal_number, std::memory_order_release);
  return signal_number;
}

bool install_crash_reporter() {
  if (detail::board() == nullptr) return false;
  // A second install would record our own handler as the previous one and loop on a crash.
  if (g_crash_reporter_installed.exchange(true)) return true;
  void* warm_up[4];
  ::backtrace(warm_up, 4);
  give_thread_an_alternate_stack();
  struct sigaction action {};
  action.sa_sigaction = &crash_handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  // While the crashing thread waits for the parent, the sampler must not overwrite its crash stack.
  int sampler = g_sampler_signal.load(std::memory_order_relaxed);
  sigaddset(&action.sa_mask, sampler != 0 ? sampler : SIGRTMIN + 6);
  for (int signal_number : kCrashSignals) {
    if (::sigaction(signal_number, &action, &g_previous_crash_action[signal_number]) != 0) {
      g_crash_reporter_installed.store(false);
      return false;
    }
  }
  return true;
}

}  // namespace gilsan::board

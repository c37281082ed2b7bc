#include "harness/watchdog/frame_inference.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

namespace gilsan::watchdog {
namespace {

bool any_of_names(std::string_view symbol, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), symbol) != names.end();
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// The bare function name of a demangled symbol: "ns::f(int)" -> "ns::f".
std::string_view function_name(std::string_view symbol) {
  auto paren = symbol.find('(');
  std::string_view name = paren == std::string_view::npos ? symbol : symbol.substr(0, paren);
  // glibc's internal aliases ("__GI___lll_lock_wait"), as its debug file names them, are the
  // functions of the same name without the marker.
  constexpr std::string_view kGlibcInternal = "__GI_";
  if (name.starts_with(kGlibcInternal)) name.remove_prefix(kGlibcInternal.size());
  return name;
}

bool is_mutex_primitive(std::string_view name) {
  return starts_with(name, "__lll_lock_wait") || starts_with(name, "pthread_mutex_lock") ||
         starts_with(name, "___pthread_mutex_lock") || starts_with(name, "__pthread_mutex_lock") ||
         starts_with(name, "pthread_mutex_timedlock") || starts_with(name, "__pthread_mutex_clocklock") ||
         starts_with(name, "pthread_rwlock_") || starts_with(name, "std::mutex::lock") ||
         starts_with(name, "std::recursive_mutex::lock") || starts_with(name, "std::shared_mutex::lock");
}

// libc and libstdc++ functions a waiting thread sits in, below the frame that explains the wait.
bool is_wait_primitive(std::string_view name) {
  if (is_mutex_primitive(name)) return true;
  if (any_of_names(name, {"read", "__read", "__libc_read", "poll", "__poll", "ppoll", "select", "pselect",
                          "epoll_wait", "nanosleep", "__nanosleep", "clock_nanosleep", "__clock_nanosleep",
                          "usleep", "sleep", "syscall", "raise", "__GI_raise", "waitpid", "__wait4",
                          "pthread_join", "___pthread_join", "__pthread_clockjoin_ex", "do_futex_wait"})) {
    return true;
  }
  for (std::string_view prefix :
       {"__futex", "futex_", "__GI___", "pthread_cond_", "___pthread_cond_", "__pthread_cond_", "sem_",
        "__new_sem_wait", "__sem_wait", "__syscall_cancel", "__internal_syscall_cancel",
        "std::condition_variable::wait", "std::__condvar::wait", "std::__atomic_futex_unsigned_base::",
        "std::thread::join"}) {
    if (starts_with(name, prefix)) return true;
  }
  return false;
}

bool is_gil_frame(std::string_view name) {
  return any_of_names(name, {"take_gil", "drop_gil", "PyEval_RestoreThread", "PyEval_AcquireThread",
                             "PyGILState_Ensure", "PyEval_AcquireLock", "_PyEval_AcquireLock",
                             "_PyThreadState_Attach", "PyEval_AcquireThread", "_PyEval_ReInitThreads"});
}

bool is_python_lock_frame(std::string_view name) {
  return any_of_names(name, {"PyThread_acquire_lock_timed", "PyThread_acquire_lock", "lock_PyThread_acquire_lock",
                             "acquire_timed", "rlock_acquire", "_PyMutex_LockTimed", "_PyMutex_LockSlow",
                             "PyMutex_Lock", "_PySemaphore_Wait", "_PyRecursiveMutex_Lock",
                             "PyThread_acquire_lock_timed_with_retries", "lock_acquire_impl"});
}

bool is_finalization_hang_frame(std::string_view name) {
  return any_of_names(name, {"PyThread_hang_thread", "_PyThreadState_HangThread", "hang_thread"});
}

bool is_driver_entry_point(std::string_view name) {
  auto upper_after = [&](std::size_t at) {
    return name.size() > at && std::isupper(static_cast<unsigned char>(name[at])) != 0;
  };
  if (starts_with(name, "cuda") && upper_after(4)) return true;  // the runtime API, e.g. through CuPy
  return starts_with(name, "cu") && upper_after(2);
}

std::string module_basename(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

NativeWait infer_native_wait(const std::vector<NativeFrame>& frames) {
  std::string innermost_primitive;
  for (const NativeFrame& frame : frames) {
    if (frame.symbol.empty()) continue;
    std::string_view name = function_name(frame.symbol);
    if (is_gil_frame(name)) return {NativeWait::Kind::Gil, std::string(name)};
    if (is_finalization_hang_frame(name)) return {NativeWait::Kind::FinalizationHang, std::string(name)};
    if (is_python_lock_frame(name)) return {NativeWait::Kind::PythonLock, std::string(name)};
    if (is_driver_entry_point(name)) return {NativeWait::Kind::DriverCall, std::string(name)};
    if (is_wait_primitive(name)) {
      // The machine frame names the wait: a primitive inlined into it (libc's futex_wait inside
      // __lll_lock_wait) is a detail of how it waits, not what for.
      if (innermost_primitive.empty() && !frame.inlined) innermost_primitive = name;
      continue;
    }
  }
  if (innermost_primitive.empty()) return {};
  if (is_mutex_primitive(innermost_primitive)) return {NativeWait::Kind::NativeLock, innermost_primitive};
  return {NativeWait::Kind::OtherWait, innermost_primitive};
}

bool frames_show_finalization(const std::vector<NativeFrame>& frames) {
  return std::any_of(frames.begin(), frames.end(), [](const NativeFrame& frame) {
    std::string_view name = function_name(frame.symbol);
    return any_of_names(name, {"Py_FinalizeEx", "Py_Finalize", "_Py_Finalize", "Py_Exit", "wait_for_thread_shutdown",
                               "finalize_modules", "_PyImport_Fini", "PyThread_hang_thread"});
  });
}

bool frames_show_driver_thread(const std::vector<NativeFrame>& frames) {
  // A thread that the program or Python started and that is now in a driver call (ctypes, a binding)
  // has driver frames too: its outermost frames, how it was started, tell it apart.
  const bool started_by_the_program = std::any_of(frames.begin(), frames.end(), [](const NativeFrame& frame) {
    return any_of_names(function_name(frame.symbol), {"__libc_start_main", "__libc_start_call_main", "main",
                                                      "pythread_wrapper", "thread_run"});
  });
  if (started_by_the_program) return false;
  return std::any_of(frames.begin(), frames.end(), [](const NativeFrame& frame) {
    std::string base = module_basename(frame.module);
    return starts_with(base, "libcuda.so") || starts_with(base, "libgilsan_simcuda");
  });
}

std::string normalize_entry_point(const std::string& name) {
  std::string result = name;
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (result.size() > suffix.size() && result.compare(result.size() - suffix.size(), suffix.size(), suffix) == 0) {
      result.resize(result.size() - suffix.size());
    }
  }
  auto version = result.rfind("_v");
  if (version != std::string::npos && version + 2 < result.size() &&
      std::all_of(result.begin() + static_cast<long>(version) + 2, result.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    result.resize(version);
  }
  return result;
}

const char* to_string(NativeWait::Kind kind) {
  switch (kind) {
    case NativeWait::Kind::None: return "none";
    case NativeWait::Kind::Gil: return "gil";
    case NativeWait::Kind::PythonLock: return "python-lock";
    case NativeWait::Kind::NativeLock: return "native-lock";
    case NativeWait::Kind::DriverCall: return "driver-call";
    case NativeWait::Kind::FinalizationHang: return "finalization-hang";
    case NativeWait::Kind::OtherWait: return "other-wait";
  }
  return "invalid";
}

}  // namespace gilsan::watchdog

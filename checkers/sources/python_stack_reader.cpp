#include "checkers/sources/python_stack_reader.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <utility>

#include "checkers/core/per_thread.h"

namespace gilsan::checkers {
namespace {

using DumpTraceback = void (*)(int fd, void* thread_state);
using ThisThreadState = void* (*)();
using IsInitialized = int (*)();

struct PythonFunctions {
  DumpTraceback dump = nullptr;
  ThisThreadState this_thread_state = nullptr;
  IsInitialized is_initialized = nullptr;
};

// Looked up on each use until found: libpython may be loaded after the source started.
PythonFunctions python_functions() {
  return PythonFunctions{reinterpret_cast<DumpTraceback>(::dlsym(RTLD_DEFAULT, "_Py_DumpTraceback")),
                         reinterpret_cast<ThisThreadState>(::dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState")),
                         reinterpret_cast<IsInitialized>(::dlsym(RTLD_DEFAULT, "Py_IsInitialized"))};
}

// One memory file per thread, reused: closed when the thread ends, not inherited by exec.
class ThreadMemoryFile {
 public:
  ThreadMemoryFile() = default;
  ~ThreadMemoryFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ThreadMemoryFile(const ThreadMemoryFile&) = delete;
  ThreadMemoryFile& operator=(const ThreadMemoryFile&) = delete;
  // PerThread resets a thread's file by assigning a fresh one: the old descriptor goes with it.
  ThreadMemoryFile& operator=(ThreadMemoryFile&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  // Made at first use, so that a thread that never reads a stack holds no descriptor.
  int fd() {
    if (fd_ < 0) fd_ = ::memfd_create("gilsan-python-stack", MFD_CLOEXEC);
    return fd_;
  }

 private:
  int fd_ = -1;
};

}  // namespace

std::string python_frame_of_dump_line(std::string_view line) {
  constexpr std::string_view kFile = "  File \"";
  if (!line.starts_with(kFile)) return {};
  line.remove_prefix(kFile.size());
  const auto quote = line.find("\", line ");
  if (quote == std::string_view::npos) return {};
  std::string_view file = line.substr(0, quote);
  if (const auto slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  std::string_view rest = line.substr(quote + 8);
  const auto in = rest.find(" in ");
  if (in == std::string_view::npos) return {};
  return std::string(file) + ":" + std::string(rest.substr(0, in)) + " " + std::string(rest.substr(in + 4));
}

Stack read_python_stack_without_gil(int max_frames) {
  static const PythonFunctions found = python_functions();
  const PythonFunctions python = found.dump != nullptr ? found : python_functions();
  if (python.dump == nullptr || python.this_thread_state == nullptr || python.is_initialized == nullptr ||
      python.is_initialized() == 0)
    return {};
  void* thread_state = python.this_thread_state();
  if (thread_state == nullptr) return {};
  // A PerThread, not a thread_local: stacks are read in a thread's last moments too (per_thread.h).
  ThreadMemoryFile& file = PerThread<ThreadMemoryFile>::get();
  if (file.fd() < 0 || ::ftruncate(file.fd(), 0) != 0 || ::lseek(file.fd(), 0, SEEK_SET) != 0) return {};
  python.dump(file.fd(), thread_state);
  const off_t size = ::lseek(file.fd(), 0, SEEK_CUR);
  if (size <= 0) return {};
  std::string text(static_cast<std::size_t>(size), '\0');
  if (::pread(file.fd(), text.data(), text.size(), 0) != size) return {};
  Stack stack;
  std::string_view rest = text;
  while (!rest.empty() && static_cast<int>(stack.size()) < max_frames) {
    const auto end = rest.find('\n');
    std::string frame = python_frame_of_dump_line(rest.substr(0, end));
    if (!frame.empty()) stack.push_back(std::move(frame));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return stack;
}

}  // namespace gilsan::checkers

#include "harness/runner/captured_output.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gilsan {

std::string CapturedOutput::drain() {
  std::string fresh;
  char buffer[65536];
  while (pipe_.valid()) {
    const ssize_t count = ::read(pipe_.get(), buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (count <= 0) {
      pipe_.reset();
      break;
    }
    const std::size_t size = static_cast<std::size_t>(count);
    fresh.append(buffer, size);
    const std::size_t kept = std::min(size, limit_ - std::min(limit_, text_.size()));
    text_.append(buffer, kept);
    dropped_ += size - kept;
  }
  return fresh;
}

}  // namespace gilsan

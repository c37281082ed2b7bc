// CapturedOutput: drains one non-blocking pipe of the child into memory, up to a limit.
//
// The parent must keep reading even past the limit: a child blocked on a full pipe would look like
// a hang. Bytes past the limit are counted and dropped.
#pragma once

#include <cstddef>
#include <string>

#include "harness/runner/unique_fd.h"

namespace gilsan {

class CapturedOutput {
 public:
  CapturedOutput(UniqueFd pipe, std::size_t limit_bytes) : pipe_(std::move(pipe)), limit_(limit_bytes) {}

  // Reads what is available now; returns the bytes read in this call (all of them, even dropped).
  // Closes the pipe at end of file or on a read error.
  std::string drain();

  int fd() const { return pipe_.get(); }
  bool open() const { return pipe_.valid(); }
  const std::string& text() const { return text_; }
  std::size_t dropped_bytes() const { return dropped_; }

 private:
  UniqueFd pipe_;
  std::size_t limit_;
  std::string text_;
  std::size_t dropped_ = 0;
};

}  // namespace gilsan

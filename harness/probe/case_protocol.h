// The lines a probe case child writes to its parent, one fact per line: "KEY VALUE...".
//
// A child may hang or be killed at any moment, so it reports each fact as soon as it knows it, in
// one write(2) per line (atomic on a pipe for lines under PIPE_BUF), and the parent reads whatever
// arrived. Values never contain spaces, except the free text of a `note` line.
#pragma once

#include <cuda.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilsan::probe {

// Keys of the lines, shared by the children that write them and the parent code that reads them.
namespace key {
inline constexpr std::string_view kSetupFailed = "setup-failed";          // CODE_NAME STEP (free text)
inline constexpr std::string_view kControl = "control";                   // CODE CODE_NAME MICROSECONDS
inline constexpr std::string_view kHostFunctionRunning = "host-function-running";
inline constexpr std::string_view kDeadline = "deadline";                 // MILLISECONDS from now
inline constexpr std::string_view kCallStarted = "call-started";
inline constexpr std::string_view kCallReturned = "call-returned";        // CODE CODE_NAME MICROSECONDS
inline constexpr std::string_view kHeldBack = "held-back";                // MILLISECONDS waited
inline constexpr std::string_view kReleased = "released";
inline constexpr std::string_view kWorkWaited = "work-waited";            // MILLISECONDS waited for the work
inline constexpr std::string_view kWorkCompleted = "work-completed";      // MICROSECONDS after the call returned
inline constexpr std::string_view kNote = "note";                         // free text
}  // namespace key

struct CaseLine {
  std::string key;
  std::vector<std::string> values;

  // The value at `index`, or "" when the line is shorter.
  const std::string& value(std::size_t index) const;
  // Every value joined by spaces (the free text of a note).
  std::string text() const;
};

// Splits one line (without its newline). Empty lines give nullopt.
std::optional<CaseLine> parse_case_line(std::string_view line);

// A driver result as two values: the number and the driver's name for it.
struct ResultCode {
  int code = 0;
  std::string name;  // e.g. "CUDA_ERROR_NOT_PERMITTED"
};
std::optional<ResultCode> result_code_at(const CaseLine& line, std::size_t index);

// The child's end: writes lines to one file descriptor. Safe to use from any thread, including a
// driver's callback thread, and never blocks on anything but the pipe.
class CaseReporter {
 public:
  explicit CaseReporter(int fd) : fd_(fd) {}
  void line(std::string_view key, const std::vector<std::string>& values = {}) const;
  void note(const std::string& text) const;
  // "KEY CODE CODE_NAME MICROSECONDS"
  void result(std::string_view key, CUresult code, const std::string& code_name,
              std::chrono::microseconds duration) const;

 private:
  int fd_;
};

}  // namespace gilsan::probe

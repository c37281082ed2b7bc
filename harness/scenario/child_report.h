// The report channel from the scenario child to the parent: one JSON object per line, written to
// the pipe whose fd number is in $GILSAN_CHILD_REPORT_FD.
//
//   {"event":"started","python":"3.11.2"}
//   {"event":"skip","reason":"needs cupy: no module named 'cupy'"}
//   {"event":"unraisable","type_module":"builtins","type":"RuntimeError","message":"...",
//    "object":"<function Holder.__del__ at 0x...>","context":"Exception ignored in"}
//   {"event":"exception","type_module":"builtins","type":"ValueError","traceback":"Traceback ..."}
//   {"event":"system_exit","code":3}
//   {"event":"driver","description":"sim ..."}
//   {"event":"implementation","version":"cupy-cuda13x 14.2.0","platform":"NVIDIA H200, ..."}
//   {"event":"finalized","status":0,"skipped_host_functions":0}
//   {"event":"error","message":"..."}          (the child itself failed: a harness error)
//
// Lines keep the stream robust: a child killed mid-write loses at most its last, partial record.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario/outcome.h"

namespace gilsan {

inline constexpr const char* kChildReportFdVariable = "GILSAN_CHILD_REPORT_FD";

// The child's side: the report channel the parent handed over, made close-on-exec (what the child
// starts with exec must not inherit it), or -1 when there is none (the hidden command was typed by
// hand, not started by gilsan).
int inherited_report_fd();

struct UnraisableRecord {
  PythonTypeName type;
  std::string message;  // str(exception)
  std::string object;   // repr of the object Python was finalizing or calling, may be empty
  std::string context;  // Python's err_msg, e.g. "Exception ignored in"
};

struct ExceptionRecord {
  PythonTypeName type;
  std::string traceback;
};

// Everything the child said, in the order it matters to the parent.
struct ChildReport {
  std::optional<std::string> python_version;
  std::optional<std::string> skip_reason;
  std::vector<UnraisableRecord> unraisables;
  std::optional<ExceptionRecord> exception;
  std::optional<int> system_exit_code;
  std::optional<std::string> driver;
  // A conformance run: the implementation's packages, and the GPU, driver and Python it ran on.
  std::optional<std::string> implementation_version;
  std::optional<std::string> platform;
  std::optional<std::string> program;  // `gilsan run -- COMMAND`: the command line the child became
  bool finalized = false;
  int finalize_status = 0;
  std::optional<unsigned long long> skipped_host_functions;
  std::optional<std::string> harness_error;
  std::vector<std::string> protocol_errors;  // lines that were not records we understand
};

// Parent side: feed bytes as they arrive, then finish() once the pipe is closed.
class ChildReportReader {
 public:
  void feed(std::string_view bytes);
  void finish();
  const ChildReport& report() const { return report_; }

 private:
  void parse_line(std::string_view line);

  std::string pending_;
  ChildReport report_;
};

// Child side. Thread-safe; write errors (the parent is gone) are ignored, the child runs on.
// Only the process that created the writer writes: a scenario's os.fork() copies the writer and
// the Python hooks into the fork, whose records would otherwise be mistaken for the scenario's.
class ChildReportWriter {
 public:
  explicit ChildReportWriter(int fd);

  void started(std::string_view python_version);
  void skip(std::string_view reason);
  void unraisable(const UnraisableRecord& record);
  void exception(const ExceptionRecord& record);
  void system_exit(int code);
  void driver(std::string_view description);
  void implementation(std::string_view version, std::string_view platform);
  void finalized(int status, std::optional<unsigned long long> skipped_host_functions);
  void error(std::string_view message);
  // The program child, just before it execs the user's command line.
  void program(std::string_view command_line);

 private:
  void write_line(const std::string& line);

  int fd_;
  int owner_pid_;
  std::mutex mutex_;
};

}  // namespace gilsan

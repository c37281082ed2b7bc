#include "harness/scenario/child_report.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>

#include <nlohmann/json.hpp>

namespace gilsan {

int inherited_report_fd() {
  const char* text = std::getenv(kChildReportFdVariable);
  char* end = nullptr;
  const long fd = text != nullptr ? std::strtol(text, &end, 10) : -1;
  if (text == nullptr || *end != '\0' || fd < 0 || fd > std::numeric_limits<int>::max() || ::fcntl(static_cast<int>(fd), F_GETFD) < 0) return -1;
  ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return static_cast<int>(fd);
}
namespace {

using nlohmann::json;

// Tracebacks and reprs are UTF-8 made by Python, but a stray byte must not lose the record.
std::string serialized(const json& record) {
  return record.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string text_field(const json& record, const char* key) {
  const auto found = record.find(key);
  if (found == record.end() || !found->is_string()) throw std::invalid_argument(std::string("no text '") + key + "'");
  return found->get<std::string>();
}

PythonTypeName type_fields(const json& record) { return {text_field(record, "type_module"), text_field(record, "type")}; }

}  // namespace

void ChildReportReader::feed(std::string_view bytes) {
  pending_.append(bytes);
  std::size_t start = 0;
  for (auto newline = pending_.find('\n'); newline != std::string::npos; newline = pending_.find('\n', start)) {
    parse_line(std::string_view(pending_).substr(start, newline - start));
    start = newline + 1;
  }
  pending_.erase(0, start);
}

void ChildReportReader::finish() {
  if (!pending_.empty()) report_.protocol_errors.push_back("truncated record: " + pending_.substr(0, 200));
  pending_.clear();
}

void ChildReportReader::parse_line(std::string_view line) {
  if (line.empty()) return;
  try {
    const json record = json::parse(line);
    const std::string event = text_field(record, "event");
    if (event == "started") {
      report_.python_version = text_field(record, "python");
    } else if (event == "skip") {
      report_.skip_reason = text_field(record, "reason");
    } else if (event == "unraisable") {
      report_.unraisables.push_back({type_fields(record), text_field(record, "message"),
                                     text_field(record, "object"), text_field(record, "context")});
    } else if (event == "exception") {
      report_.exception = ExceptionRecord{type_fields(record), text_field(record, "traceback")};
    } else if (event == "system_exit") {
      report_.system_exit_code = record.at("code").get<int>();
    } else if (event == "driver") {
      report_.driver = text_field(record, "description");
    } else if (event == "implementation") {
      report_.implementation_version = text_field(record, "version");
      report_.platform = text_field(record, "platform");
    } else if (event == "finalized") {
      report_.finalized = true;
      report_.finalize_status = record.at("status").get<int>();
      if (const auto skipped = record.find("skipped_host_functions"); skipped != record.end() && !skipped->is_null())
        report_.skipped_host_functions = skipped->get<unsigned long long>();
    } else if (event == "program") {
      report_.program = text_field(record, "command");
    } else if (event == "error") {
      report_.harness_error = text_field(record, "message");
    } else {
      throw std::invalid_argument("unknown event '" + event + "'");
    }
  } catch (const std::exception& error) {
    report_.protocol_errors.push_back(std::string(error.what()) + ": " + std::string(line.substr(0, 200)));
  }
}

ChildReportWriter::ChildReportWriter(int fd) : fd_(fd), owner_pid_(::getpid()) {}

void ChildReportWriter::started(std::string_view python_version) {
  write_line(serialized({{"event", "started"}, {"python", python_version}}));
}

void ChildReportWriter::skip(std::string_view reason) { write_line(serialized({{"event", "skip"}, {"reason", reason}})); }

void ChildReportWriter::unraisable(const UnraisableRecord& record) {
  write_line(serialized({{"event", "unraisable"},
                         {"type_module", record.type.module},
                         {"type", record.type.qualname},
                         {"message", record.message},
                         {"object", record.object},
                         {"context", record.context}}));
}

void ChildReportWriter::exception(const ExceptionRecord& record) {
  write_line(serialized({{"event", "exception"},
                         {"type_module", record.type.module},
                         {"type", record.type.qualname},
                         {"traceback", record.traceback}}));
}

void ChildReportWriter::system_exit(int code) { write_line(serialized({{"event", "system_exit"}, {"code", code}})); }

void ChildReportWriter::driver(std::string_view description) {
  write_line(serialized({{"event", "driver"}, {"description", description}}));
}

void ChildReportWriter::implementation(std::string_view version, std::string_view platform) {
  write_line(serialized({{"event", "implementation"}, {"version", version}, {"platform", platform}}));
}

void ChildReportWriter::finalized(int status, std::optional<unsigned long long> skipped_host_functions) {
  json record = {{"event", "finalized"}, {"status", status}, {"skipped_host_functions", nullptr}};
  if (skipped_host_functions) record["skipped_host_functions"] = *skipped_host_functions;
  write_line(serialized(record));
}

void ChildReportWriter::error(std::string_view message) {
  write_line(serialized({{"event", "error"}, {"message", message}}));
}

void ChildReportWriter::program(std::string_view command_line) {
  write_line(serialized({{"event", "program"}, {"command", command_line}}));
}

void ChildReportWriter::write_line(const std::string& line) {
  if (::getpid() != owner_pid_) return;
  std::lock_guard lock(mutex_);
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t written = ::write(fd_, rest.data(), rest.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace gilsan

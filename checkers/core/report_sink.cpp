#include "checkers/core/report_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkers/core/report_json.h"
#include "checkers/core/report_text.h"
#include "harness/text/errno_text.h"

namespace gilsan::checkers {

void TextSink::on_report(const Report& report) { out_ << render_text(report) << std::flush; }

void TextSink::on_finish(const RunSummary& summary) { out_ << render_text(summary) << std::flush; }

void JsonFileSink::on_report(const Report& report) {
  reports_.push_back(report);
  write(nullptr);
}

void JsonFileSink::on_finish(const RunSummary& summary) {
  reports_ = summary.reports;
  write(&summary);
}

void JsonFileSink::write(const RunSummary* finished) {
  const std::string text = render_json(reports_, finished);
  const std::string temporary = path_ + ".tmp";
  // For the user only, and never through a link someone left at the temporary name.
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  std::FILE* file = fd >= 0 ? ::fdopen(fd, "w") : nullptr;
  if (fd >= 0 && file == nullptr) ::close(fd);
  if (!file) {
    throw ReportWriteError("report_path " + path_ + ": cannot create " + temporary + ": " +
                           errno_text(errno));
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed || std::rename(temporary.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw ReportWriteError("report_path " + path_ + ": cannot write: " + errno_text(error));
  }
}

}  // namespace gilsan::checkers

// Where reports go. A sink is called by the Sanitizer with no lock of the sanitizer's state held,
// one call at a time; it must not call into the CUDA driver or take the GIL (the thread that made
// the report may hold driver or interpreter state), so sinks only format and write.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkers/core/report.h"

namespace gilsan::checkers {

class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual void on_report(const Report& report) = 0;
  virtual void on_finish(const RunSummary& summary) = 0;
};

// The text form, e.g. on std::cerr.
class TextSink : public ReportSink {
 public:
  explicit TextSink(std::ostream& out) : out_(out) {}
  void on_report(const Report& report) override;
  void on_finish(const RunSummary& summary) override;

 private:
  std::ostream& out_;
};

class ReportWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The JSON document at `path`, rewritten (write a temporary file, rename it over) after each
// report, so that a run the watchdog kills still leaves every report made so far, with
// complete=false.
class JsonFileSink : public ReportSink {
 public:
  explicit JsonFileSink(std::string path) : path_(std::move(path)) {}
  void on_report(const Report& report) override;
  void on_finish(const RunSummary& summary) override;
  const std::string& path() const { return path_; }

 private:
  void write(const RunSummary* finished);

  std::string path_;
  std::vector<Report> reports_;
};

}  // namespace gilsan::checkers

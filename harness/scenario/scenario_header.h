// ScenarioHeader: the `# gilsan: key = value` lines at the top of a scenario file.
//
//   # gilsan: expect = deadlock:gil-driver-inversion
//   # gilsan: drivers = sim, real
//   # gilsan: timeout = 20
//   # gilsan: needs = cupy, two-devices
//   # gilsan: description = a GIL-holding synchronize waits for a Python host function
//   # gilsan: suppressions = inversion.supp
//   # gilsan: implementations = any                   (a conformance scenario: gilsan_impl, per impl)
//   # gilsan: capabilities = stream-launch, capture    (what it needs of an implementation)
//   # gilsan: expect.cupy = report:host-function-lifetime   (one implementation's expected outcome)
//   # gilsan: module_loading = eager                   (the child's CUDA_MODULE_LOADING: eager or lazy)
//
// The header is the leading run of comment and blank lines; it ends at the first line of code.
// `expect` is required; the other keys are optional. Every mistake is a ScenarioInputError whose
// message is one line, "FILE:LINE: what is wrong".
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/profile/enqueued_work.h"
#include "harness/scenario/outcome.h"

namespace gilsan {

// The need a scenario states when it must see at least two devices; every other need is a Python
// module that must be importable.
inline constexpr std::string_view kNeedTwoDevices = "two-devices";

struct ScenarioHeader {
  Outcome expect;
  std::vector<std::string> drivers = {"sim", "real"};
  std::optional<double> timeout_seconds;
  std::vector<std::string> needs;
  std::string description;
  // The sanitizer's suppression file, relative to the scenario's folder (docs/sanitizer.md).
  std::optional<std::string> suppressions;
  // A conformance scenario (written against gilsan_impl) runs once per implementation: "any", or the
  // implementations it is for. Empty: an ordinary scenario, run once.
  std::vector<std::string> implementations;
  std::vector<std::string> capabilities;  // what it needs of an implementation (gilsan_impl.base)
  std::map<std::string, Outcome, std::less<>> expect_by_implementation;  // expect.IMPL
  // The loading mode the child's driver runs under (its CUDA_MODULE_LOADING, set before the driver
  // opens); unset: whatever the caller's environment says. A scenario about a kernel's first use
  // pins it, since the driver's answer for that use differs by mode (docs/driver-behaviour.md).
  std::optional<ModuleLoading> module_loading;

  bool allows_driver(std::string_view driver) const;
  bool is_conformance() const { return !implementations.empty(); }
  // Whether `implementation` is one the scenario is for.
  bool allows_implementation(std::string_view implementation) const;
  // The outcome expected with `implementation` (expect.IMPL, else expect).
  const Outcome& expect_for(std::string_view implementation) const;
};

class ScenarioInputError : public std::runtime_error {
 public:
  ScenarioInputError(const std::string& file, int line, const std::string& message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }  // 0 when the error concerns the whole file (e.g. unreadable)

 private:
  std::string file_;
  int line_;
};

// Parses the header of `text`; `file_name` only labels errors.
ScenarioHeader parse_scenario_header(std::string_view text, const std::string& file_name);

// Reads the file and parses its header; an unreadable file is a ScenarioInputError too.
ScenarioHeader read_scenario_header(const std::filesystem::path& file);

}  // namespace gilsan

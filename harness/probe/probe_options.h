// The probe's command line:
//   gilsan probe [--driver auto|real|sim] [--profile IN] [-o PROFILE.json] [--markdown FILE]
//                [--jobs N] [--enqueue-limit N] [--cudart PATH]
//                [--held-by launch-host-func|stream-add-callback|graph-host-node]
//   gilsan probe --diff A.json B.json
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/driver/driver_selection.h"

namespace gilsan::probe {

struct ProbeOptions {
  bool help = false;
  // --diff A B
  std::optional<std::pair<std::string, std::string>> diff;
  // a probe
  DriverRequest driver = DriverRequest::Auto;
  std::optional<std::string> profile;   // the simulated driver's profile, and the carry-over for unmeasured cells
  std::optional<std::string> output;    // the measured profile; stdout when absent
  std::optional<std::string> markdown;
  std::optional<int> jobs;
  int enqueue_limit = 4096;
  std::optional<std::string> cudart;
  // --held-by: how the outside matrix's held host function is enqueued (held_host_function.h)
  std::string held_by = "launch-host-func";
};

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws UsageError with a one-line message.
ProbeOptions parse_probe_options(const std::vector<std::string>& arguments);

extern const char* const kProbeUsage;

}  // namespace gilsan::probe

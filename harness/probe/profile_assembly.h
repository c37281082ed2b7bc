// From evidence to a DriverProfile: one cell per entry point and table, the topology, and the list
// of cells that could not be measured.
//
// An entry point with several recipes takes the most restrictive answer among them (inside: hangs
// over not-permitted over allowed; outside: blocks over returns): the profile feeds a deadlock
// model, where a call that can block must be treated as one that does. A cell no recipe could decide
// (the call waits for the host function by its nature, or its case failed) takes its value from the
// carry-over profile when one is given, else the harmless default (allowed / returns), and is listed
// in `unmeasured` with the reason in the markdown.
#pragma once

#include <map>
#include <string>

#include "harness/probe/probe_evidence.h"
#include "harness/profile/driver_profile.h"

namespace gilsan::probe {

struct AssembledProfile {
  DriverProfile profile;
  // "inside_host_function.cuX" etc. -> why it is unmeasured
  std::map<std::string, std::string> unmeasured_because;
};

AssembledProfile assemble_profile(const ProbeEvidence& evidence, const DriverProfile* carry_over);

}  // namespace gilsan::probe

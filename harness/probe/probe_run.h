// One probe run: every case of both matrices, the topology and the runtime comparison, each in a
// child process, then the evidence read from their reports.
#pragma once

#include <functional>
#include <string>

#include "harness/driver/driver_selection.h"
#include "harness/probe/case_process.h"
#include "harness/probe/probe_evidence.h"
#include "harness/probe/probe_timeouts.h"

namespace gilsan::probe {

struct ProbeRunSettings {
  DriverKind driver = DriverKind::Sim;
  SelfCommand self;
  ProbeTimeouts timeouts;
  int jobs = 2;
  int enqueue_limit = 4096;
  bool compare_runtime = false;
  std::string runtime_library;     // "" = the default candidates
  std::string runtime_skipped_because;  // when compare_runtime is false
};

// Runs every case. `on_done` sees each case as it ends. Throws std::system_error when a child cannot
// be started.
ProbeEvidence run_probe(const ProbeRunSettings& settings, const std::function<void(const CaseResult&)>& on_done);

// Where the driver came from: GPU name, driver version (the NVIDIA kernel module's for the real
// driver when /proc tells), CUDA version, today's date (UTC), method "gilsan probe".
DriverProfileOrigin read_origin(const DriverTable& driver, DriverKind kind);

// The NVIDIA kernel module's version in the text of /proc/driver/nvidia/version ("580.159.04"): the
// first word after "Kernel Module" made of digits and dots; "" when there is none.
std::string nvidia_driver_version_from(const std::string& proc_version_text);

// The default number of cases run at once: most of a case's time is spent waiting, so twice the
// cores, from 2 to 8.
int default_jobs();

}  // namespace gilsan::probe

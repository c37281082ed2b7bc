// The injected sanitizer of one process: the Sanitizer configured from the environment and the
// source that feeds it -- the observer of gilsan's own driver when the process runs on one (the
// simulated driver, or the forwarding one in front of the real driver: observed_front_end.h), else
// CUPTI's callbacks through the InjectHandler. Everything the CUPTI adapter needs besides CUPTI itself.
//
// Environment: GILSAN_OPTIONS (docs/sanitizer.md, "Options"; gil_held_blocking_call starts off in
// this mode, unless GILSAN_SANITIZE=1 says `gilsan run` started the process: then every checker is on,
// as in a scenario), GILSAN_PROFILE (the driver profile; default the shipped one), GILSAN_BOARD (set by
// `gilsan run`: also write the board), GILSAN_REPORT (the JSON report, when GILSAN_OPTIONS names no
// report_path), GILSAN_SANITIZER_TEXT (the text report's file instead of stderr).
#pragma once

#include <memory>
#include <string>

#include "checkers/frontend/process_front_end.h"
#include "checkers/inject/inject_handler.h"
#include "checkers/inject/python_process_setup.h"
#include "checkers/sources/python_gil_probe.h"
#include "checkers/sources/sim_source.h"

namespace gilsan::checkers::inject {

// The Sanitizer, its text file, the profile and the options are the front end's (process_front_end.h).
struct InjectRuntime : ProcessFrontEnd {
  PythonGilProbe gil_probe;
  std::unique_ptr<InjectHandler> handler;  // CUPTI's source
  std::unique_ptr<SimSource> source;       // gilsan's driver's source (observed_front_end.h)
  GilsanSimObserver observer{};            // what that driver calls: the source's hooks, and python below
  std::unique_ptr<PythonProcessSetup> python;
  std::unique_ptr<OwnTimeStats> stats;  // GILSAN_OPTIONS stats=1; printed by finish_inject_runtime
};

// The defaults of the injected mode, before GILSAN_OPTIONS.
Options injected_default_options();

// The injected mode's stacks (SanitizerConfig::capture_stack / symbolize_stack): the calling
// thread's Python stack when it runs Python, else its native stack, captured only for a new edge or
// report and named when a report is made, less the innermost frames of the sanitizer, CUPTI and the
// driver.
Stack capture_injected_stack(ThreadId thread);
void symbolize_injected_stack(Stack& stack);

// Builds the Sanitizer from the environment. Returns "" or one line saying why the sanitizer is off (a
// bad GILSAN_OPTIONS, an unreadable profile, an unwritable GILSAN_SANITIZER_TEXT).
std::string start_injected_sanitizer(InjectRuntime& runtime);

// CUPTI's source: the handler, with `driver` for its own calls. Returns "" or why it cannot run.
std::string start_inject_handler(InjectRuntime& runtime, const InjectedDriver& driver);

// Both of the above, for the CUPTI path and its tests.
std::string start_inject_runtime(InjectRuntime& runtime, const InjectedDriver& driver);

// With GILSAN_BOARD (a process `gilsan run` started): maps the board and installs the watchdog's stack
// sampler and crash reporter, as the scenario child does first thing. Returns whether a board is used.
bool attach_to_the_watchdog();

// At process exit: finish() (the last findings, the summary on every sink), the own-time line on
// stderr with stats=1, then the exit-code
// policy: a process that would exit 0 after unsuppressed reports exits with options.exitcode.
int finish_inject_runtime(InjectRuntime& runtime);

}  // namespace gilsan::checkers::inject

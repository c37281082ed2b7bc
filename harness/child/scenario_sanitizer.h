// The sanitizer of a scenario child (docs/runner.md, "The sanitizer"): one Sanitizer for the whole
// process, fed by the `gilsan` module (checkers/sources/sanitizer_hooks.h, which this file
// provides) and, on the simulated driver, by the driver's observer hooks (SimSource). On the real
// driver the module's own driver calls stand in for the observer, so no CUPTI is needed.
//
// The parent turns it on by setting child_protocol.h's sanitizer variables; without them nothing
// here runs and the module finds no hooks. What the parent checks before a run (GILSAN_OPTIONS, a
// scenario's suppressions) is harness/scenario/sanitizer_request.h's.
#pragma once

#include <cstddef>

namespace gilsan {

// Whether the parent asked for the sanitizer (child_protocol.h's kSanitizeVariable).
bool scenario_sanitizer_requested();

namespace checkers {
class Sanitizer;
}
// The child's Sanitizer once start_scenario_sanitizer ran, else null (also in builds without the
// checkers). Other sources of the child (Python locks) feed it.
checkers::Sanitizer* scenario_sanitizer_instance();

// Creates the process-wide Sanitizer from GILSAN_OPTIONS over the scenarios' defaults (every
// checker on), the report files the parent named, and the driver profile. Call once, before the
// interpreter starts. Throws std::runtime_error with one line (a bad GILSAN_OPTIONS or suppression
// file, an unreadable profile) -- the child then fails instead of running unchecked.
void start_scenario_sanitizer();

// Py_FinalizeEx returned: Python host functions that have not run are lost (the sanitizer says so
// now, before the drain, in case a late one takes the process down).
void scenario_interpreter_finished();

// Host functions the driver was given and has not begun (0 without a sanitizer): the exit drain waits
// for them, so that a native one still queued runs rather than being taken for lost.
std::size_t scenario_host_functions_waiting();

// After the scenario, its finalization and the drain of host functions: the last findings and the
// summary, then the exit-code policy: a scenario that would exit 0 exits with the sanitizer's
// exitcode (66) when it made unsuppressed reports. Returns `status` unchanged when no sanitizer runs.
int finish_scenario_sanitizer(int status);

}  // namespace gilsan

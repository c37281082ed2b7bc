// The line of the scenario a run's report points at, for the tools that place a failure on a line
// (SARIF's region, GitHub's ::error annotation): the blocking call of a hang (the first thread of its
// cycle, in the scenario's own frames), the raise of an exception (its innermost frame in the scenario),
// the first frame a sanitizer report names, else the last line of the scenario a traceback on stderr names.
#pragma once

#include <optional>
#include <string_view>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// The line of `scenario` that `text` names first ("x.py:12", or Python's 'File ".../x.py", line 12'),
// matched on the file's name; with `last`, the last one it names.
std::optional<int> line_named(std::string_view text, std::string_view scenario, bool last = false);

// nullopt when no report of the run names a line of its scenario (a crash in native code, an exit).
std::optional<int> reported_line(const ScenarioResult& result);

}  // namespace gilsan

// `gilsan probe`: measure a driver's behaviour around host functions, or diff two profiles.
//
// Exit codes: 0 probe written / profiles identical; 1 (--diff) the profiles differ; 2 bad input (usage,
// an unreadable or malformed profile, a bad GILSAN_PROBE_TIME_SCALE); 3 the driver cannot be loaded;
// 4 the probe could not run its cases (a child could not be started, an output not written).
#pragma once

#include <string>
#include <vector>

namespace gilsan::probe {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDifferent = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNoDriver = 3;
inline constexpr int kExitProbeFailed = 4;

// `arguments` are the words after `probe` on the command line, exactly as they appear at the end of
// this process's argv: the probe re-executes itself with them replaced by a hidden case argument.
int run_probe_command(const std::vector<std::string>& arguments);

}  // namespace gilsan::probe

// The default driver profile, compiled in from the file named by the CMake cache variable
// GILSAN_DEFAULT_PROFILE (sim_builtin_profile.cpp is generated at build time), so the simulated
// driver needs no file at run time.
#pragma once

namespace gilsan::sim {

extern const char* const kBuiltinProfileText;
extern const char* const kBuiltinProfileName;  // the file's name without .json

}  // namespace gilsan::sim

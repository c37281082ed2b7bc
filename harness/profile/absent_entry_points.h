// Entry points a driver profile does not list. The driver table (harness/driver/driver_entry_points.h)
// only grows, so a profile written before an entry point was added lists it in neither call table.
// Every profile gilsan ever wrote still loads: such an entry point is unmeasured, with the answers the
// probe assumes for a call no case decided (allowed inside a host function, returns while one runs:
// the driver adds nothing of its own around host functions), listed in `unmeasured`, and the reader
// says so in one line. docs/driver-profile.md, "Profiles older than the driver table", says why those
// answers.
#pragma once

#include <string>
#include <vector>

#include "harness/profile/driver_profile.h"
#include "harness/profile/profile_source_text.h"

namespace gilsan {

// What an entry point the profile does not list answers.
inline constexpr InsideBehaviour kUnmeasuredInside = InsideBehaviour::Allowed;
inline constexpr OutsideBehaviour kUnmeasuredOutside = OutsideBehaviour::Returns;

// gilsan probe sets this to the --profile file for its case children, which read that file after it:
// they leave the line about what the file lacks to the probe, which has said it.
inline constexpr const char* kProfileWarnedVariable = "GILSAN_PROFILE_WARNED";

// Gives every profiled entry point that neither call table lists the unmeasured answers and records
// them in profile.absent_entry_points (sorted). An entry point listed in one table only is an error
// naming it (gilsan always wrote both tables alike).
void complete_call_tables(const ProfileSourceText& src, DriverProfile& profile);

// The cells those entry points leave unmeasured: both call tables, and the EAGER ones where the
// profile has measured EAGER tables (which then say nothing of them).
std::vector<std::string> absent_entry_point_cells(const DriverProfile& profile);

// "gilsan: SOURCE: N entry points unmeasured (not in this profile): a, b, c", or "" when the profile
// lacks none.
std::string absent_entry_points_warning(const DriverProfile& profile, const std::string& source);

// Writes that line to stderr the first time this process reads the file `path` (every process that
// loads a profile may tell the user so: the runner, a program's simulated driver or sanitizer).
// Quiet in a process whose starter read the same file first and said it: a scenario child of
// gilsan run/suite (GILSAN_RUN_MARKER set) whose $GILSAN_SIM_PROFILE is the file (the runner read its
// --profile before starting any child), or a probe case child whose $GILSAN_PROFILE_WARNED is the file.
void warn_about_absent_entry_points(const DriverProfile& profile, const std::string& path);

}  // namespace gilsan

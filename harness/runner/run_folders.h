// The folders a run makes under the temporary folders (the driver link, the sanitizer's report, the
// watchdog's board) carry the pid of the gilsan that made them: gilsan-KIND-PID-XXXXXX. A gilsan that
// was killed (SIGKILL, a CI job's timeout) cannot remove its own; the run guardian (run_guardian.h)
// removes them as it dies, and the next gilsan removes those of dead owners before it starts.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace gilsan {

// "gilsan-KIND-PID", the name of such a folder before mkdtemp's six characters (and their '-').
std::string run_folder_prefix(std::string_view kind, pid_t owner);

// Makes PARENT/gilsan-KIND-PID-XXXXXX for this process (mkdtemp); throws std::system_error naming it.
std::string make_run_folder(const std::string& parent, std::string_view kind);

// Where run folders go: $TMPDIR when set, /dev/shm and /tmp (once each).
std::vector<std::string> temporary_folders();

// The pid in a run folder's name, or -1 when `name` is none (older gilsans' names have no pid).
pid_t run_folder_owner(std::string_view name);

// Removes the run folders in `parents` whose owner is `owner`; returns the paths removed.
std::vector<std::string> remove_run_folders_of(pid_t owner, const std::vector<std::string>& parents);

// Removes the run folders in `parents` of this user whose owner is no running process; returns the
// paths removed. A folder whose pid a live process has now (reused) is kept.
std::vector<std::string> remove_leftovers_of_dead_runs(const std::vector<std::string>& parents);

}  // namespace gilsan

// --max-rss: the resident memory of a scenario's process tree, as the supervisor measures it each
// tick. No cgroup is needed (none is delegated on the machines gilsan runs on): the child and every
// descendant are found through /proc/PID/task/TID/children, and their resident sets summed (pages
// shared between them, libpython's text for one, count once per process: the sum is an upper bound).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

namespace gilsan {

// The resident bytes of `root` and its descendants; 0 when `root` is gone.
std::size_t resident_bytes_of_tree(pid_t root);

// "512M", "2G", "300k", "1048576" (bytes); K/M/G are binary (KiB, MiB, GiB), lower or upper case. Returns
// nothing for anything else, zero included.
std::optional<std::size_t> parse_byte_size(const std::string& text);

// "300 MiB" (whole MiB from 1 MiB up, else bytes).
std::string byte_size_text(std::size_t bytes);

}  // namespace gilsan

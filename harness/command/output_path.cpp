#include "harness/command/output_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "harness/text/errno_text.h"

namespace gilsan {

// Tried, not inferred from permission bits: root passes every access() check, and a folder such as
// /proc or a read-only mount still refuses the file.
std::optional<std::string> why_unwritable(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return "an empty file name";
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status)) return path + " is a folder";
  if (fs::exists(status)) {
    // Opened for writing without truncating: its contents stay as they are until the real write.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return path + ": " + errno_text(errno);
    ::close(fd);
    return std::nullopt;
  }
  const fs::path folder = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  const fs::file_status folder_status = fs::status(folder, error);
  if (!fs::exists(folder_status)) return "the folder " + folder.string() + " does not exist";
  if (!fs::is_directory(folder_status)) return folder.string() + " is not a folder";
  // Created and removed at once: nothing is left if the run stops before it writes the file.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + path + ": " + errno_text(errno);
  ::close(fd);
  ::unlink(path.c_str());
  return std::nullopt;
}

}  // namespace gilsan

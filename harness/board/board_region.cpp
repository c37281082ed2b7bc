#include "harness/board/board_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "harness/board/board_writer.h"
#include "harness/text/errno_text.h"

namespace gilsan::board {
namespace {

bool is_writable_directory(const char* path) {
  struct stat info {};
  return path != nullptr && path[0] != '\0' && ::stat(path, &info) == 0 && S_ISDIR(info.st_mode) &&
         ::access(path, W_OK | X_OK) == 0;
}

std::string choose_parent_directory(const BoardRegionOptions& options) {
  if (!options.parent_directory.empty()) return options.parent_directory;
  const char* tmpdir = std::getenv("TMPDIR");
  if (is_writable_directory(tmpdir)) return tmpdir;
  if (is_writable_directory("/dev/shm")) return "/dev/shm";
  return "/tmp";
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw BoardError("board: " + what + " " + path + ": " + errno_text(error));
}

}  // namespace

BoardRegion BoardRegion::create(const BoardRegionOptions& options) {
  std::string pattern = choose_parent_directory(options) + "/" + options.name + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) fail("cannot create directory", pattern, errno);
  std::string directory(buffer.data());
  std::string path = directory + "/board";

  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int error = errno;
    ::rmdir(directory.c_str());
    fail("cannot create", path, error);
  }
  void* address = MAP_FAILED;
  int error = 0;
  if (::ftruncate(fd, static_cast<off_t>(sizeof(Board))) != 0) {
    error = errno;
  } else {
    address = ::mmap(nullptr, sizeof(Board), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (address == MAP_FAILED) error = errno;
  }
  ::close(fd);
  if (address == MAP_FAILED) {
    ::unlink(path.c_str());
    ::rmdir(directory.c_str());
    fail("cannot size or map", path, error);
  }

  Board* board = new (address) Board();
  board->header.magic = kMagic;
  board->header.layout_version = kLayoutVersion;
  board->header.slot_count = kMaxThreads;
  board->header.total_size = sizeof(Board);
  board->header.crash_wait_ms = options.crash_wait_ms;
  return BoardRegion(std::move(directory), std::move(path), board);
}

BoardRegion::BoardRegion(BoardRegion&& other) noexcept
    : directory_(std::move(other.directory_)),
      path_(std::move(other.path_)),
      board_(std::exchange(other.board_, nullptr)) {}

BoardRegion& BoardRegion::operator=(BoardRegion&& other) noexcept {
  if (this != &other) {
    remove();
    directory_ = std::move(other.directory_);
    path_ = std::move(other.path_);
    board_ = std::exchange(other.board_, nullptr);
  }
  return *this;
}

BoardRegion::~BoardRegion() { remove(); }

std::string BoardRegion::env_entry() const {
  return std::string(kBoardEnvironmentVariable) + "=" + path_;
}

void BoardRegion::remove() noexcept {
  if (board_ == nullptr) return;
  board_->~Board();
  ::munmap(board_, sizeof(Board));
  board_ = nullptr;
  ::unlink(path_.c_str());
  ::rmdir(directory_.c_str());
}

}  // namespace gilsan::board

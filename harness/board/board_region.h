// BoardRegion: the parent's side of the board. It creates a private directory (mkdtemp, 0700) and in
// it the board file (0600), maps it, and removes both when destroyed, whatever happened to the child.
// The child finds the file through the environment: env_entry() gives "GILSAN_BOARD=<path>".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/board/board_layout.h"

namespace gilsan::board {

class BoardError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BoardRegionOptions {
  // Where the private directory goes. Empty: $TMPDIR if it names a directory, else /dev/shm, else /tmp.
  std::string parent_directory;
  // How long a crashing thread in the child waits for the parent's snapshot before dying.
  std::uint32_t crash_wait_ms = 2000;
  // The private directory's name before mkdtemp's "-XXXXXX" (the runner puts its pid in it: run_folders.h).
  std::string name = "gilsan-board";
};

class BoardRegion {
 public:
  // Throws BoardError naming the path and the failing call.
  static BoardRegion create(const BoardRegionOptions& options = {});

  BoardRegion(BoardRegion&& other) noexcept;
  BoardRegion& operator=(BoardRegion&& other) noexcept;
  BoardRegion(const BoardRegion&) = delete;
  BoardRegion& operator=(const BoardRegion&) = delete;
  ~BoardRegion();

  Board& board() { return *board_; }
  const Board& board() const { return *board_; }
  const std::string& path() const { return path_; }
  const std::string& directory() const { return directory_; }
  std::string env_entry() const;  // "GILSAN_BOARD=<path>", for a child's environment

  // Unmaps the board and removes the file and the directory now (the destructor does it otherwise).
  void remove() noexcept;

 private:
  BoardRegion(std::string directory, std::string path, Board* board)
      : directory_(std::move(directory)), path_(std::move(path)), board_(board) {}

  std::string directory_;
  std::string path_;
  Board* board_ = nullptr;
};

}  // namespace gilsan::board

#include "harness/watchdog/python_stacks.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>
#include <sstream>
#include <system_error>

#include "harness/board/board_writer.h"

namespace gilsan::watchdog {
namespace {

using Clock = std::chrono::steady_clock;

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// '  File "path", line 12 in name' -> frame; false for anything else.
bool parse_frame_line(const std::string& line, PythonFrame& frame) {
  auto file_start = line.find("File \"");
  if (file_start == std::string::npos) return false;
  file_start += 6;
  auto file_end = line.find("\", line ", file_start);
  if (file_end == std::string::npos) return false;
  frame.file = line.substr(file_start, file_end - file_start);
  std::istringstream rest(line.substr(file_end + 8));
  if (!(rest >> frame.line)) return false;
  std::string in_word;
  rest >> in_word;
  std::getline(rest, frame.function);
  auto first = frame.function.find_first_not_of(' ');
  frame.function = first == std::string::npos ? "" : frame.function.substr(first);
  return in_word == "in";
}

void drain(int fd) {
  char buffer[4096];
  pollfd ready{fd, POLLIN, 0};
  while (::poll(&ready, 1, 0) > 0 && (ready.revents & POLLIN) != 0) {
    if (::read(fd, buffer, sizeof(buffer)) <= 0) return;
  }
}

}  // namespace

std::vector<PythonThreadStack> parse_faulthandler_dump(const std::string& text) {
  std::vector<PythonThreadStack> stacks;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    bool current = starts_with(line, "Current thread 0x");
    if (current || starts_with(line, "Thread 0x")) {
      PythonThreadStack stack;
      stack.current = current;
      // A dump cut short (a child too slow to finish writing it, as under valgrind) may end inside the
      // thread's id: that thread's stack is left out, not the whole snapshot.
      const std::string_view ident = std::string_view(line).substr(line.find("0x") + 2);
      const auto [end, error] = std::from_chars(ident.data(), ident.data() + ident.size(), stack.thread_ident, 16);
      if (error != std::errc() || end == ident.data()) break;
      stacks.push_back(std::move(stack));
      continue;
    }
    PythonFrame frame;
    if (!stacks.empty() && parse_frame_line(line, frame)) stacks.back().frames.push_back(std::move(frame));
  }
  return stacks;
}

std::string collect_python_stacks(const PythonStackRequest& request) {
  drain(request.read_fd);
  if (::kill(request.pid, request.signal_number) != 0) {
    throw std::system_error(errno, std::generic_category(),
                            "python stacks: kill(" + std::to_string(request.pid) + ", " +
                                std::to_string(request.signal_number) + ")");
  }
  std::string text;
  auto give_up = Clock::now() + request.timeout;
  auto hard_stop = give_up + 4 * request.timeout;  // a child that never stops writing
  while (true) {
    auto now = Clock::now();
    if (now >= hard_stop) break;
    auto wait = text.empty() ? give_up - now : std::chrono::duration_cast<Clock::duration>(request.idle_gap);
    if (text.empty() && now >= give_up) break;
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
    pollfd ready{request.read_fd, POLLIN, 0};
    int n = ::poll(&ready, 1, wait_ms < 1 ? 1 : wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!text.empty()) break;  // silence after output: the dump is complete
      continue;
    }
    if ((ready.revents & POLLIN) == 0) break;  // writer closed
    char buffer[4096];
    ssize_t got = ::read(request.read_fd, buffer, sizeof(buffer));
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    // The child's end-of-dump line: whole now, no silence to wait for (what follows it is dropped).
    if (const auto end = text.find(board::kPythonStacksEnd); end != std::string::npos) {
      text.resize(end);
      break;
    }
  }
  return text;
}

}  // namespace gilsan::watchdog

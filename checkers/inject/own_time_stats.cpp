#include "checkers/inject/own_time_stats.h"

namespace gilsan::checkers::inject {
namespace {

std::string describe(const char* what, std::uint64_t count, std::uint64_t nanoseconds) {
  std::string text = std::to_string(count) + " " + what;
  if (count > 0) text += ", " + std::to_string(nanoseconds / count) + " ns each";
  return text;
}

}  // namespace

std::string OwnTimeStats::summary() const {
  auto load = [](const std::atomic<std::uint64_t>& value) { return value.load(std::memory_order_relaxed); };
  return "gilsan: own time: " + describe("launch callbacks", load(launch_.count), load(launch_.nanoseconds)) +
         "; " + describe("other API callbacks", load(other_.count), load(other_.nanoseconds)) + "; " +
         describe("wrapped host functions (the user's function excluded)", load(wrapper_.count),
                  load(wrapper_.nanoseconds));
}

}  // namespace gilsan::checkers::inject

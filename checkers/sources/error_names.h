// CUresult names ("CUDA_ERROR_NOT_PERMITTED") for DriverCallExit::result_name, taken from the
// driver's own cuGetErrorName once, up front, so that a source never calls into the driver from
// inside an observer hook or a CUPTI callback (the simulated driver forbids it; on the real driver
// it would re-enter the callback).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gilsan::checkers {

class ErrorNames {
 public:
  // The driver's answer for one code, or null (wraps cuGetErrorName).
  using NameOf = std::function<const char*(int result)>;
  ErrorNames() = default;
  // Asks `name_of` for every code 0..kLargestCode (CUresult values are below 1000).
  explicit ErrorNames(const NameOf& name_of);
  // "" for a code the driver has no name for.
  std::string_view name(int result) const;

  static constexpr int kLargestCode = 1023;

 private:
  std::vector<std::string> names_;
};

}  // namespace gilsan::checkers

// EntryPointResolver: fills typed function pointers from a library's entry points, looked up by name
// (cuGetProcAddress of the loaded driver, dlsym of a dlopen'd runtime), and keeps the names it could
// not find, so a caller resolves its whole list and then names every missing entry point at once.
//
// It lives with the driver profiles because gilsan_profile is the lowest library that both of its
// users link: the probe (harness/probe) and the injection library (checkers/inject).
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace gilsan {

class EntryPointResolver {
 public:
  // Returns the entry point's address, or nullptr when the library does not have it.
  using Lookup = std::function<void*(const char* name)>;

  explicit EntryPointResolver(Lookup lookup);

  // Points `slot` at the entry point `name`, or leaves `slot` as it is and records `name` as missing.
  template <typename Function>
  bool resolve(const char* name, Function& slot) {
    static_assert(std::is_pointer_v<Function> && std::is_function_v<std::remove_pointer_t<Function>>,
                  "an entry point is stored in a function pointer");
    void* address = lookup_(name);
    if (address == nullptr) {
      missing_.emplace_back(name);
      return false;
    }
    slot = reinterpret_cast<Function>(address);
    return true;
  }

  // The names not found so far, in the order they were asked for.
  const std::vector<std::string>& missing() const { return missing_; }
  // Those names as "a, b, c" ("" when none is missing), for a one-line error.
  std::string missing_list() const;

 private:
  Lookup lookup_;
  std::vector<std::string> missing_;
};

}  // namespace gilsan

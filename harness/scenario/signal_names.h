// Signal names as people write them in scenario headers and read them in reports ("SIGSEGV").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gilsan {

// "SIGSEGV" for SIGSEGV; "SIG<n>" for a number without a name (real-time signals).
std::string signal_name(int signal_number);

// Accepts "SIGSEGV" and "SEGV" (any case); nullopt for a name this system does not know.
std::optional<int> signal_number(std::string_view name);

}  // namespace gilsan

// The exit codes of the gilsan command (documented in docs/runner.md and `gilsan --help`).
#pragma once

namespace gilsan {

inline constexpr int kExitAllMatched = 0;    // every outcome matched its expectation (skips included)
inline constexpr int kExitMismatch = 1;      // at least one outcome did not
inline constexpr int kExitUsage = 2;         // bad flag, unreadable file, malformed header
inline constexpr int kExitInternal = 3;      // gilsan itself failed
inline constexpr int kExitInterrupted = 130; // stopped by SIGINT/SIGTERM/SIGHUP; the scenario was killed

}  // namespace gilsan

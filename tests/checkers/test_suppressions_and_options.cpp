// Suppression files (parse, match, unused, malformed) and GILSAN_OPTIONS parsing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

std::string error_of(auto&& action) {
  try {
    action();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(GlobMatch, WholeStringWithStarQuestionMarkAndEscapes) {
  EXPECT_TRUE(glob_match("cuMemAlloc", "cuMemAlloc"));
  EXPECT_FALSE(glob_match("cuMemAlloc", "cuMemAllocHost"));
  EXPECT_TRUE(glob_match("cuMemAlloc*", "cuMemAllocHost"));
  EXPECT_TRUE(glob_match("*scenario.py*", "on_done at /x/scenario.py:14"));
  EXPECT_FALSE(glob_match("*scenario.py", "on_done at /x/scenario.py:14"));
  EXPECT_TRUE(glob_match("cu?emFree", "cuMemFree"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_FALSE(glob_match("?", ""));
  EXPECT_TRUE(glob_match("a*b*c", "a-b-b-c"));
  EXPECT_FALSE(glob_match("a*b*c", "a-b-b-d"));
  EXPECT_TRUE(glob_match("\\*literal", "*literal"));
  EXPECT_FALSE(glob_match("\\*literal", "xliteral"));
}

TEST(Suppressions, ParseSkipsCommentsAndBlankLines) {
  const Suppressions suppressions = Suppressions::parse(
      "# a comment\n\n  lock-order-cycle : *legacy.py*  \ncuda-call-in-host-function:cuStreamQuery\n",
      "supp.txt");
  ASSERT_EQ(suppressions.rules().size(), 2u);
  EXPECT_EQ(suppressions.rules()[0].checker, Checker::lock_order_cycle);
  EXPECT_EQ(suppressions.rules()[0].pattern, "*legacy.py*");
  EXPECT_EQ(suppressions.rules()[0].line, 3);
  EXPECT_EQ(suppressions.rules()[1].line, 4);
}

TEST(Suppressions, MalformedLinesNameTheFileAndLine) {
  EXPECT_EQ(error_of([] { Suppressions::parse("# ok\nno colon here\n", "supp.txt"); }),
            "supp.txt:2: expected CHECKER:PATTERN, got 'no colon here'");
  EXPECT_EQ(error_of([] { Suppressions::parse("data-race:foo", "s"); }),
            "s:1: unknown checker 'data-race' (known: " + all_checker_names() + ")");
  EXPECT_EQ(error_of([] { Suppressions::parse("\n\nlock-order-cycle:   ", "s"); }),
            "s:3: empty pattern after 'lock-order-cycle:'");
  EXPECT_THROW(Suppressions::parse("x", "s"), SuppressionError);
}

TEST(Suppressions, MissingFileIsAClearError) {
  EXPECT_EQ(error_of([] { Suppressions::load("/nonexistent/gilsan.supp"); }),
            "/nonexistent/gilsan.supp: cannot open the suppression file");
}

TEST(Suppressions, MatchOnStackFrameEntryPointOrImplementationAndListUnused) {
  Harness h(Options(),
            Suppressions::parse("lock-order-cycle:*legacy_sync*\n"            // a frame
                                "cuda-call-in-host-function:cuStreamQuery\n"  // an entry point
                                "unraisable-in-host-function:cupy\n"          // an implementation
                                "gil-held-blocking-call:*never*\n",           // unused
                                "supp.txt"));
  // A gil-driver-inversion whose main-thread edge has a legacy_sync frame.
  h.run(kCallback, Harness::host_function(HostFunctionKind::python, kStream1, "cb"));
  h.call(kMain, "cuStreamSynchronize", kContext, kStream1, true, {.streams = {kStream1}},
         kCudaSuccess, {"legacy_sync at old.py:3"});
  // A query inside a host function, and an exception from a CuPy callback.
  HostFunction cupy_callback =
      Harness::host_function(HostFunctionKind::python, kStream2, "cupy cb");
  cupy_callback.implementation = "cupy";
  h.begin(kCallback, cupy_callback);
  h.call(kCallback, "cuStreamQuery", kContext, kStream2, true, {});
  h.sanitizer.unraisable_in_host_function({.thread = kCallback, .message = "E"});
  h.sanitizer.host_function_end(kCallback);

  const RunSummary summary = h.sanitizer.finish();
  // Left: the gil-held-blocking-call of the sync (its suppression does not match).
  ASSERT_EQ(summary.reports.size(), 1u);
  EXPECT_EQ(summary.reports[0].checker, Checker::gil_held_blocking_call);
  EXPECT_EQ(summary.suppressed, 3u);
  ASSERT_EQ(summary.unused_suppressions.size(), 1u);
  EXPECT_EQ(summary.unused_suppressions[0].file, "supp.txt");
  EXPECT_EQ(summary.unused_suppressions[0].line, 4);
  EXPECT_EQ(summary.unused_suppressions[0].checker, "gil-held-blocking-call");
  EXPECT_EQ(summary.unused_suppressions[0].pattern, "*never*");
  EXPECT_EQ(h.sink->reports().size(), 1u);  // suppressed reports never reach the sinks
}

TEST(Suppressions, PatternOfAnotherCheckerDoesNotSuppress) {
  Harness h(Options(), Suppressions::parse("cuda-call-in-host-function:*\n", "s"));
  h.sync_stream(kMain, kStream1, true);
  EXPECT_EQ(h.sanitizer.finish().reports.size(), 1u);
}

TEST(Options, ParsesEveryKey) {
  const Options options = parse_options(
      "halt_on_error=1:exitcode=7:report_path=/tmp/r.json:suppressions=/x/s.supp:gil_held_blocking_call=0:stats=1:");
  EXPECT_TRUE(options.halt_on_error);
  EXPECT_TRUE(options.stats);
  EXPECT_FALSE(parse_options("").stats);
  EXPECT_EQ(options.exitcode, 7);
  EXPECT_EQ(options.report_path, "/tmp/r.json");
  EXPECT_EQ(options.suppressions, "/x/s.supp");
  EXPECT_FALSE(options.is_enabled(Checker::gil_held_blocking_call));
  EXPECT_TRUE(options.is_enabled(Checker::lock_order_cycle));
}

TEST(Options, TextOverridesDefaults) {
  Options injected;
  injected.set_enabled(Checker::gil_held_blocking_call, false);
  EXPECT_FALSE(parse_options("", injected).is_enabled(Checker::gil_held_blocking_call));
  EXPECT_TRUE(parse_options("gil_held_blocking_call=1", injected)
                  .is_enabled(Checker::gil_held_blocking_call));
  EXPECT_EQ(parse_options("").exitcode, 66);
}

TEST(Options, ErrorsNameTheItem) {
  EXPECT_EQ(
      error_of([] { parse_options("halt_on_error=1:verbose=2"); }),
      "GILSAN_OPTIONS: item 2 'verbose=2': unknown option 'verbose' (known: halt_on_error, "
      "exitcode, report_path, suppressions, stats, lock_order_cycle, cuda_call_in_host_function, "
      "gil_held_blocking_call, unraisable_in_host_function, host_function_after_finalization, "
      "host_function_lifetime, host_function_lost_at_exit)");
  EXPECT_EQ(error_of([] { parse_options("halt_on_error=yes"); }),
            "GILSAN_OPTIONS: item 1 'halt_on_error=yes': expected 0 or 1");
  EXPECT_EQ(error_of([] { parse_options("halt_on_error"); }),
            "GILSAN_OPTIONS: item 1 'halt_on_error': expected KEY=VALUE");
  EXPECT_EQ(error_of([] { parse_options("exitcode=256"); }),
            "GILSAN_OPTIONS: item 1 'exitcode=256': expected an exit code from 0 to 255");
  EXPECT_EQ(error_of([] { parse_options("exitcode=1x"); }),
            "GILSAN_OPTIONS: item 1 'exitcode=1x': expected an exit code from 0 to 255");
  EXPECT_EQ(error_of([] { parse_options("report_path=", Options(), "GILSAN_OPTIONS (env)"); }),
            "GILSAN_OPTIONS (env): item 1 'report_path=': expected a path");
  EXPECT_THROW(parse_options("lock_order_cycle=on"), OptionsError);
}

TEST(ConfigFromOptions, LoadsTheSuppressionFileAndAddsTheSinks) {
  const auto directory =
      std::filesystem::temp_directory_path() / ("gilsan-config-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  const auto supp = directory / "s.supp";
  std::ofstream(supp) << "lock-order-cycle:*x*\n";
  std::ostringstream text;
  const SanitizerConfig config = config_from_options(
      "suppressions=" + supp.string() + ":report_path=" + (directory / "r.json").string(),
      Options(), measured_driver(), text);
  EXPECT_EQ(config.suppressions.rules().size(), 1u);
  EXPECT_EQ(config.sinks.size(), 2u);
  EXPECT_EQ(error_of([&] {
              config_from_options("suppressions=" + (directory / "none").string(), Options(),
                                  measured_driver(), text);
            }),
            (directory / "none").string() + ": cannot open the suppression file");
  std::ofstream(supp) << "oops\n";
  EXPECT_EQ(error_of([&] {
              config_from_options("suppressions=" + supp.string(), Options(), measured_driver(),
                                  text);
            }),
            supp.string() + ":1: expected CHECKER:PATTERN, got 'oops'");
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace gilsan::checkers::testing

#include "harness/scenario/scenario_header.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gilsan {
namespace {

// The one-line error for `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_scenario_header(text, "s.py");
  } catch (const ScenarioInputError& error) {
    return error.what();
  }
  return "";
}

TEST(ScenarioHeader, ParsesEveryKey) {
  const ScenarioHeader header = parse_scenario_header(
      "#!/usr/bin/env python3\n"
      "# -*- coding: utf-8 -*-\n"
      "\n"
      "# gilsan: expect = deadlock:gil-driver-inversion\n"
      "#gilsan:drivers=real\n"
      "  # gilsan:   timeout = 2.5  \n"
      "# gilsan: needs = cupy, cuda.core, two-devices\n"
      "# gilsan: description = a GIL-holding sync = a hang\n"
      "# gilsan: suppressions = known.supp\n"
      "# an ordinary comment\n"
      "import gilsan\n",
      "s.py");
  EXPECT_EQ(header.expect, (Outcome{OutcomeKind::Deadlock, "gil-driver-inversion"}));
  EXPECT_EQ(header.drivers, std::vector<std::string>{"real"});
  EXPECT_TRUE(header.allows_driver("real"));
  EXPECT_FALSE(header.allows_driver("sim"));
  EXPECT_EQ(header.timeout_seconds, 2.5);
  EXPECT_EQ(header.needs, (std::vector<std::string>{"cupy", "cuda.core", "two-devices"}));
  EXPECT_EQ(header.description, "a GIL-holding sync = a hang");
  EXPECT_EQ(header.suppressions, "known.supp");
}

TEST(ScenarioHeader, DefaultsToBothDriversNoTimeoutNoNeeds) {
  const ScenarioHeader header = parse_scenario_header("# gilsan: expect = pass\nprint(1)\n", "s.py");
  EXPECT_EQ(header.expect.kind, OutcomeKind::Pass);
  EXPECT_TRUE(header.allows_driver("sim"));
  EXPECT_TRUE(header.allows_driver("real"));
  EXPECT_FALSE(header.timeout_seconds.has_value());
  EXPECT_TRUE(header.needs.empty());
  EXPECT_TRUE(header.description.empty());
}

TEST(ScenarioHeader, ModuleLoadingPinsTheLoadingModeOrIsLeftToTheEnvironment) {
  EXPECT_EQ(parse_scenario_header("# gilsan: expect = pass\n# gilsan: module_loading = eager\n", "s.py").module_loading,
            ModuleLoading::Eager);
  EXPECT_EQ(parse_scenario_header("# gilsan: expect = pass\n# gilsan: module_loading = lazy\n", "s.py").module_loading,
            ModuleLoading::Lazy);
  EXPECT_FALSE(parse_scenario_header("# gilsan: expect = pass\n", "s.py").module_loading.has_value());
}

TEST(ScenarioHeader, AnUnknownModuleLoadingIsAnErrorNamingItsLine) {
  // The driver's own spelling is upper case; the header's values are the profile's mode names.
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: timeout = 3\n# gilsan: module_loading = EAGER\n"),
            "s.py:3: module_loading must be eager or lazy (the child's CUDA_MODULE_LOADING), not 'EAGER'");
}

TEST(ScenarioHeader, AcceptsWindowsLineEndings) {
  const ScenarioHeader header =
      parse_scenario_header("# gilsan: expect = timeout\r\n# gilsan: timeout = 3\r\nx = 1\r\n", "s.py");
  EXPECT_EQ(header.expect.kind, OutcomeKind::Timeout);
  EXPECT_EQ(header.timeout_seconds, 3.0);
}

TEST(ScenarioHeader, IgnoresGilsanTextInsideCodeThatIsNotAComment) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\nx = '# gilsan: expect = timeout'\n"), "");
}

TEST(ScenarioHeader, MissingExpectIsAnErrorOnLineOne) {
  EXPECT_EQ(error_of("# gilsan: timeout = 3\nprint(1)\n"),
            "s.py:1: missing '# gilsan: expect = ...' line (every scenario states its expected outcome)");
}

TEST(ScenarioHeader, UnknownKeyNamesTheKnownOnes) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: expext = pass\n"),
            "s.py:2: unknown key 'expext' (known keys: expect, drivers, timeout, needs, description, suppressions, implementations, capabilities, module_loading, expect.IMPL)");
}

TEST(ScenarioHeader, DuplicateKeyNamesTheFirstLine) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# comment\n# gilsan: expect = timeout\n"),
            "s.py:3: duplicate key 'expect' (first set on line 1)");
}

TEST(ScenarioHeader, LineWithoutEqualsSign) {
  EXPECT_EQ(error_of("# gilsan: expect pass\n"), "s.py:1: expected '# gilsan: key = value'");
}

TEST(ScenarioHeader, EmptyValue) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: needs =  \n"), "s.py:2: empty value for 'needs'");
}

TEST(ScenarioHeader, EmptyKey) {
  EXPECT_EQ(error_of("# gilsan: = pass\n"),
            "s.py:1: unknown key '' (known keys: expect, drivers, timeout, needs, description, suppressions, implementations, capabilities, module_loading, expect.IMPL)");
}

TEST(ScenarioHeader, AnEntryWithoutItsColonIsAnErrorNotAComment) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan timeout = 10\n"),
            "s.py:2: a header line needs a colon after 'gilsan': '# gilsan: key = value'");
  // A comment that only mentions gilsan stays a comment.
  EXPECT_NO_THROW(parse_scenario_header("# gilsan: expect = pass\n# gilsan checks the run\n# gilsanx = 1\n", "s.py"));
}

TEST(ScenarioHeader, HeaderLineAfterCode) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\nimport os\n\n# gilsan: timeout = 5\n"),
            "s.py:4: '# gilsan:' line after the header, which ended at line 2 (the first line of code)");
}

TEST(ScenarioHeader, BadExpectations) {
  EXPECT_EQ(error_of("# gilsan: expect = hang\n"),
            "s.py:1: unknown expectation 'hang' (pass, timeout, memory-limit, exception:T, unraisable:T, crash:SIGNAL, "
            "deadlock:CLASS or report:CHECKER)");
  EXPECT_EQ(error_of("# gilsan: expect = pass:now\n"), "s.py:1: 'pass' takes no ':' detail");
  EXPECT_EQ(error_of("# gilsan: expect = timeout:5\n"), "s.py:1: 'timeout' takes no ':' detail");
  EXPECT_EQ(error_of("# gilsan: expect = exception:\n"),
            "s.py:1: 'exception:' needs a Python exception type, e.g. exception:ValueError");
  EXPECT_EQ(error_of("# gilsan: expect = unraisable:9Bad\n"),
            "s.py:1: 'unraisable:' needs a Python exception type, e.g. unraisable:ValueError");
  EXPECT_EQ(error_of("# gilsan: expect = exception:a..b\n"),
            "s.py:1: 'exception:' needs a Python exception type, e.g. exception:ValueError");
  EXPECT_EQ(error_of("# gilsan: expect = crash:SIGNOPE\n"),
            "s.py:1: 'crash:' needs a signal name, e.g. crash:SIGSEGV, not 'SIGNOPE'");
  EXPECT_EQ(error_of("# gilsan: expect = deadlock:gil-inversion\n"),
            "s.py:1: unknown deadlock class 'gil-inversion' (one of: gil-driver-inversion, callback-self-wait, "
            "callback-serialization, callback-driver-lock, user-lock-inversion, finalization, gpu-stall, unknown)");
  EXPECT_EQ(error_of("# gilsan: expect = report:lockorder\n"),
            "s.py:1: unknown checker 'lockorder' (one of: lock-order-cycle, cuda-call-in-host-function, "
            "gil-held-blocking-call, unraisable-in-host-function, host-function-after-finalization, "
            "host-function-lifetime, host-function-lost-at-exit)");
}

TEST(ScenarioHeader, GoodExpectations) {
  auto expect = [](const std::string& value) {
    return parse_scenario_header("# gilsan: expect = " + value + "\n", "s.py").expect;
  };
  EXPECT_EQ(expect("crash:SEGV"), (Outcome{OutcomeKind::Crash, "SIGSEGV"}));
  EXPECT_EQ(expect("crash:sigabrt"), (Outcome{OutcomeKind::Crash, "SIGABRT"}));
  EXPECT_EQ(expect("exception:pkg.errors.Bad"), (Outcome{OutcomeKind::Exception, "pkg.errors.Bad"}));
  EXPECT_EQ(expect("unraisable:RuntimeError"), (Outcome{OutcomeKind::Unraisable, "RuntimeError"}));
  EXPECT_EQ(expect("report:lock-order-cycle"), (Outcome{OutcomeKind::Report, "lock-order-cycle"}));
  for (std::string_view deadlock_class : deadlock_classes())
    EXPECT_EQ(expect("deadlock:" + std::string(deadlock_class)).detail, deadlock_class);
}

TEST(ScenarioHeader, BadDrivers) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: drivers = sim, cpu\n"),
            "s.py:2: unknown driver 'cpu' in 'drivers' (sim, real)");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: drivers = sim, sim\n"),
            "s.py:2: 'sim' is listed twice in 'drivers'");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: drivers = sim,\n"),
            "s.py:2: empty item in the list of 'drivers'");
}

TEST(ScenarioHeader, BadTimeouts) {
  for (const char* value : {"abc", "5s", "inf", "nan", ""}) {
    if (*value == '\0') continue;  // covered by EmptyValue
    EXPECT_EQ(error_of(std::string("# gilsan: expect = pass\n# gilsan: timeout = ") + value + "\n"),
              std::string("s.py:2: timeout must be a number of seconds, e.g. 20 or 2.5, not '") + value + "'");
  }
  for (const char* value : {"0", "-1", "1e9"})
    EXPECT_EQ(error_of(std::string("# gilsan: expect = pass\n# gilsan: timeout = ") + value + "\n"),
              std::string("s.py:2: timeout must be above 0 and at most 86400 seconds, not '") + value + "'");
}

TEST(ScenarioHeader, FilesThatAreNoScenarioSayWhatTheyAre) {
  EXPECT_EQ(error_of(""), "s.py: the file is empty (a scenario starts with '# gilsan: expect = ...')");
  std::string binary = "# gilsan: expect = pass\nprint(1)\n\x7f" "ELF";
  binary += std::string(2, '\0');
  EXPECT_EQ(error_of(binary), "s.py:3: a NUL byte: not a Python source file");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: description = " + std::string(1 << 20, 'x') + "\n"),
            "s.py:2: the value of 'description' is 1048576 characters long; a header value has at most 4096");
  // The code after the header may be as long as Python allows.
  EXPECT_EQ(error_of("# gilsan: expect = pass\nx = '" + std::string(1 << 20, 'y') + "'\n"), "");
}

TEST(ScenarioHeader, BadNeeds) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: needs = three-devices\n"),
            "s.py:2: unknown need 'three-devices' (a Python module such as cupy or cuda.core, or two-devices)");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: needs = cupy, , numpy\n"),
            "s.py:2: empty item in the list of 'needs'");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: needs = cupy, cupy\n"),
            "s.py:2: 'cupy' is listed twice in 'needs'");
}

TEST(ScenarioHeader, ReadsFilesAndNamesUnreadableOnes) {
  const auto folder = std::filesystem::temp_directory_path() / ("gilsan-header-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto file = folder / "s.py";
  std::ofstream(file) << "# gilsan: expect = exception:KeyError\nraise KeyError(1)\n";
  EXPECT_EQ(read_scenario_header(file).expect, (Outcome{OutcomeKind::Exception, "KeyError"}));

  const auto missing = folder / "missing.py";
  try {
    read_scenario_header(missing);
    ADD_FAILURE() << "a missing file was read";
  } catch (const ScenarioInputError& error) {
    EXPECT_EQ(std::string(error.what()), missing.string() + ": no such file");
    EXPECT_EQ(error.line(), 0);
  }
  try {
    read_scenario_header(folder);
    ADD_FAILURE() << "a folder was read";
  } catch (const ScenarioInputError& error) {
    EXPECT_EQ(std::string(error.what()), folder.string() + ": not a regular file");
  }
  std::filesystem::remove_all(folder);
}

TEST(ScenarioHeader, ConformanceKeys) {
  const ScenarioHeader header = parse_scenario_header(
      "# gilsan: expect = pass\n"
      "# gilsan: implementations = any\n"
      "# gilsan: capabilities = stream-launch, capture\n"
      "# gilsan: expect.cupy = unraisable:RuntimeError\n"
      "# gilsan: expect.mypkg.adapter:Impl = deadlock:callback-self-wait\n",
      "s.py");
  EXPECT_TRUE(header.is_conformance());
  EXPECT_TRUE(header.allows_implementation("numba-cuda"));
  EXPECT_EQ(header.capabilities, (std::vector<std::string>{"stream-launch", "capture"}));
  EXPECT_EQ(header.expect_for("reference"), (Outcome{OutcomeKind::Pass, ""}));
  EXPECT_EQ(header.expect_for("cupy"), (Outcome{OutcomeKind::Unraisable, "RuntimeError"}));
  EXPECT_EQ(header.expect_for("mypkg.adapter:Impl"), (Outcome{OutcomeKind::Deadlock, "callback-self-wait"}));

  const ScenarioHeader some =
      parse_scenario_header("# gilsan: expect = pass\n# gilsan: implementations = reference, cupy\n", "s.py");
  EXPECT_TRUE(some.allows_implementation("cupy"));
  EXPECT_FALSE(some.allows_implementation("cuda-core"));
  EXPECT_FALSE(parse_scenario_header("# gilsan: expect = pass\n", "s.py").is_conformance());
}

TEST(ScenarioHeader, ConformanceMistakesNameTheLine) {
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: implementations = any, cupyy\n"),
            "s.py:2: unknown implementation 'cupyy' (any, reference, cupy, cuda-core, cuda-bindings, numba-cuda, "
            "or package.module:Class)");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: implementations = any\n# gilsan: capabilities = stream\n"),
            "s.py:3: unknown capability 'stream' (one of: stream-launch, graph-node, capture, native-function, "
            "borrowed-stream)");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: implementations = any\n# gilsan: expect.cupi = pass\n"),
            "s.py:3: 'expect.cupi' names no implementation (expect.IMPL, IMPL one of reference, cupy, cuda-core, "
            "cuda-bindings, numba-cuda, or package.module:Class)");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: implementations = any\n# gilsan: expect.cupy = hang\n"),
            "s.py:3: unknown expectation 'hang' (pass, timeout, memory-limit, exception:T, unraisable:T, crash:SIGNAL, "
            "deadlock:CLASS or report:CHECKER)");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: expect.cupy = pass\n"),
            "s.py:2: 'expect.IMPL' needs '# gilsan: implementations = ...' (a conformance scenario)");
  EXPECT_EQ(error_of("# gilsan: expect = pass\n# gilsan: capabilities = capture\n"),
            "s.py:2: 'capabilities' needs '# gilsan: implementations = ...' (a conformance scenario)");
}

}  // namespace
}  // namespace gilsan

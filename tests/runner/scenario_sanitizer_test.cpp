// The scenario child's sanitizer as the gilsan module drives it on the real driver: no simulated
// driver observer, so the module's own driver calls (through the hooks) are the only ones. The
// module itself is not needed: the test calls the hooks the way observation.cpp does.
#include "harness/child/scenario_sanitizer.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>
#include <thread>

#include "checkers/sources/sanitizer_hooks.h"
#include "harness/runner/sanitizer_findings.h"

extern "C" const GilsanSanitizerHooks* gilsan_sanitizer_hooks();

namespace gilsan {
namespace {

constexpr unsigned long long kContext = 0x7000;
constexpr unsigned long long kStream = 0x7100;

TEST(ScenarioSanitizer, ModuleCallsAloneFindTheFinishedCallbackInversion) {
  ASSERT_EQ(gilsan_sanitizer_hooks(), nullptr);  // nothing runs before start
  const SanitizerReportFolder folder;
  for (const auto& [name, value] : folder.child_environment()) ::setenv(name.c_str(), value.c_str(), 1);
  ::unsetenv("GILSAN_OPTIONS");
  EXPECT_TRUE(scenario_sanitizer_requested());
  start_scenario_sanitizer();
  const GilsanSanitizerHooks* hooks = gilsan_sanitizer_hooks();
  ASSERT_NE(hooks, nullptr);
  ASSERT_EQ(hooks->abi_version, GILSAN_SANITIZER_HOOKS_ABI);
  hooks->driver_opened(0, "libcuda.so.1");  // the real driver: no observer to install

  // The main thread enqueues a Python host function; the callback thread runs it with the GIL.
  GilsanSanitizerHostFunction host_function{0x1234, 1, "s.py:3 on_done", kContext, kStream, 1};
  hooks->host_function_enqueued(&host_function);
  std::thread callback([&] {
    hooks->host_function_begin(&host_function);
    hooks->gil_acquire_begin();
    hooks->gil_acquired();
    hooks->gil_released();
    hooks->host_function_end();
  });
  callback.join();
  // Then, with the GIL held, the main thread synchronizes that stream.
  hooks->gil_acquired();
  hooks->call_enter("cuStreamSynchronize", kContext, kStream, 0);
  hooks->call_exit("cuStreamSynchronize", 0);
  hooks->gil_released();

  EXPECT_EQ(finish_scenario_sanitizer(0), 66);
  const SanitizerFindings findings = folder.read();
  EXPECT_EQ(findings.checkers, (std::vector<std::string>{"lock-order-cycle", "gil-held-blocking-call"}));
  EXPECT_NE(findings.text.find("the GIL -> completion of stream 0x7100 -> the GIL"), std::string::npos)
      << findings.text;
  EXPECT_NE(findings.text.find("s.py:3 on_done (python, gilsan)"), std::string::npos) << findings.text;
  EXPECT_EQ(finish_scenario_sanitizer(3), 3);  // the scenario's own failure wins
}

}  // namespace
}  // namespace gilsan

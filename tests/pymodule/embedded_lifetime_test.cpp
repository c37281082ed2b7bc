// host-function-lifetime end to end: the module embedded as the scenario child runs it, with the
// child's sanitizer (harness/child/scenario_sanitizer.h) exported for the module's dlsym lookup and the
// simulated driver's observer installed. The module's real sequences must give no report; sequences
// that a broken host_launch would produce, fed through the module's own observation entry points (the
// public API has no switch to break it), must give the report. One interpreter per test process.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/child/scenario_sanitizer.h"
#include "harness/pymodule/host_payload.h"
#include "harness/pymodule/observation.h"
#include "harness/runner/sanitizer_findings.h"
#include "tests/pymodule/embedded_interpreter.h"

namespace {

using gilsan::SanitizerFindings;
using gilsan::SanitizerReportFolder;
using gilsan::test::run;
using gilsan::test::start_interpreter;
namespace pymodule = gilsan::pymodule;

// The sanitizer as `gilsan run` starts it in a scenario child, before the interpreter.
void start_sanitizer(const SanitizerReportFolder& folder) {
  for (const auto& [name, value] : folder.child_environment()) ASSERT_EQ(setenv(name.c_str(), value.c_str(), 1), 0);
  ASSERT_EQ(unsetenv("GILSAN_OPTIONS"), 0);
  gilsan::start_scenario_sanitizer();
}

// GIL held: a payload as host_launch makes one, for a callable that is never called here.
pymodule::HostPayload* python_payload() {
  PyObject* args = PyTuple_New(0);
  PyObject* builtins = PyEval_GetBuiltins();
  pymodule::HostPayload* payload =
      pymodule::new_python_payload(PyDict_GetItemString(builtins, "len"), args, nullptr, "test");
  Py_DECREF(args);
  return payload;
}

// Handles the simulated driver never hands out (the observation only uses them as ids).
CUstream fake_stream() { return reinterpret_cast<CUstream>(0x5100); }
CUcontext fake_context() { return reinterpret_cast<CUcontext>(0x5000); }
CUgraph fake_graph() { return reinterpret_cast<CUgraph>(0x6100); }
CUgraphExec fake_exec() { return reinterpret_cast<CUgraphExec>(0x6200); }

// The sanitizer, the interpreter with the module imported, and one Python payload to misuse.
pymodule::HostPayload* start_with_one_payload(const SanitizerReportFolder& folder) {
  start_sanitizer(folder);
  start_interpreter();
  run("import gilsan\n");
  return python_payload();
}

// Ends the interpreter and the sanitizer and expects exactly one host-function-lifetime report,
// whose text says `says`.
void expect_one_lifetime_report(const SanitizerReportFolder& folder, const std::string& says) {
  EXPECT_EQ(Py_FinalizeEx(), 0);
  EXPECT_EQ(gilsan::finish_scenario_sanitizer(0), 66);
  const SanitizerFindings findings = folder.read();
  EXPECT_EQ(findings.checkers, std::vector<std::string>{"host-function-lifetime"}) << findings.text;
  EXPECT_NE(findings.text.find(says), std::string::npos) << findings.text;
}

TEST(EmbeddedLifetime, TheModulesRealSequencesGiveNoReport) {
  const SanitizerReportFolder folder;
  start_sanitizer(folder);
  start_interpreter();
  run("import gilsan\n"
      "stream = gilsan.Stream()\n"
      "ran = []\n"
      // One-shot host_launch: the trampoline releases its callable inside its own (only) run.
      "for i in range(5):\n"
      "    gilsan.host_launch(stream, ran.append, i)\n"
      "stream.synchronize()\n"
      // A built graph replayed three times, then destroyed (exec first).
      "graph = gilsan.Graph()\n"
      "graph.add_host_node(ran.append, 'built')\n"
      "exec_ = graph.instantiate()\n"
      "for _ in range(3):\n"
      "    exec_.launch(stream)\n"
      "stream.synchronize()\n"
      "exec_.close()\n"
      "graph.close()\n"
      // A captured graph destroyed before its exec, which replays afterwards.
      "stream.begin_capture()\n"
      "gilsan.host_launch(stream, ran.append, 'captured')\n"
      "graph = stream.end_capture()\n"
      "exec_ = graph.instantiate()\n"
      "graph.close()\n"
      "exec_.launch(stream)\n"
      "exec_.launch(stream)\n"
      "stream.synchronize()\n"
      "exec_.close()\n"
      // An exec destroyed (with its graph) while its replay waits behind device work: the callable
      // must live until that replay ran. The script ends without waiting for the release.
      "graph = gilsan.Graph()\n"
      "graph.add_host_node(ran.append, 'pending')\n"
      "exec_ = graph.instantiate()\n"
      "stream.work(200)\n"
      "exec_.launch(stream)\n"
      "exec_.close()\n"
      "graph.close()\n"
      "stream.synchronize()\n"
      "assert ran == [0, 1, 2, 3, 4] + ['built'] * 3 + ['captured'] * 2 + ['pending'], ran\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
  EXPECT_EQ(gilsan_module_drain_after_finalize(30.0), 0u);
  EXPECT_EQ(gilsan::finish_scenario_sanitizer(0), 0);
  const SanitizerFindings findings = folder.read();
  EXPECT_TRUE(findings.checkers.empty()) << findings.text;
}

TEST(EmbeddedLifetime, AOneShotCallableReleasedBeforeItsRunIsReported) {
  const SanitizerReportFolder folder;
  start_sanitizer(folder);
  start_interpreter();
  run("import gilsan\n");  // the module looks the hooks up
  pymodule::HostPayload* payload = python_payload();
  // A broken host_launch: enqueue, release at once, and the driver runs it afterwards.
  pymodule::observe_host_function_enqueued(payload, fake_stream(), fake_context());
  pymodule::observe_payload_released(payload);
  payload->stream = fake_stream();
  payload->context = fake_context();
  pymodule::observe_host_function_begin(payload);
  pymodule::observe_host_function_end();
  pymodule::release_payload(payload);
  // One report per callable: the run that follows is not reported again.
  expect_one_lifetime_report(folder, "was released with 1 run(s) still enqueued");
}

TEST(EmbeddedLifetime, AGraphCallableReleasedBeforeAPendingReplayIsReported) {
  const SanitizerReportFolder folder;
  pymodule::HostPayload* payload = start_with_one_payload(folder);
  // A broken graph path: the callable goes as soon as the graph and exec are closed, although a
  // replay launched before is still waiting to run.
  pymodule::observe_graph_host_node_added(fake_graph(), payload, nullptr);
  pymodule::observe_graph_instantiated(fake_graph(), fake_exec());
  pymodule::observe_graph_host_functions_enqueued(fake_exec(), 1, fake_stream(), fake_context());
  pymodule::observe_graph_exec_destroyed(fake_exec());
  pymodule::observe_graph_destroyed(fake_graph());
  pymodule::observe_graph_payload_released(payload);
  pymodule::release_payload(payload);
  expect_one_lifetime_report(folder, "was released with 1 run(s) still enqueued");
}

TEST(EmbeddedLifetime, AGraphCallableReleasedWhileItsGraphLivesIsReported) {
  const SanitizerReportFolder folder;
  pymodule::HostPayload* payload = start_with_one_payload(folder);
  pymodule::observe_graph_host_node_added(fake_graph(), payload, nullptr);
  pymodule::observe_graph_instantiated(fake_graph(), fake_exec());
  pymodule::observe_graph_exec_destroyed(fake_exec());
  pymodule::observe_graph_payload_released(payload);  // the graph can still be instantiated and run
  pymodule::release_payload(payload);
  pymodule::observe_graph_destroyed(fake_graph());
  expect_one_lifetime_report(folder, "while 1 graph(s) can still launch it");
}

TEST(EmbeddedLifetime, AGraphCallableKeptAfterItsGraphsAreGoneIsReported) {
  const SanitizerReportFolder folder;
  pymodule::HostPayload* payload = start_with_one_payload(folder);
  pymodule::observe_graph_host_node_added(fake_graph(), payload, nullptr);
  pymodule::observe_graph_instantiated(fake_graph(), fake_exec());
  pymodule::observe_graph_host_functions_enqueued(fake_exec(), 1, fake_stream(), fake_context());
  payload->stream = nullptr;
  pymodule::observe_graph_host_function_begin(payload);
  pymodule::observe_host_function_end();
  pymodule::observe_graph_destroyed(fake_graph());
  pymodule::observe_graph_exec_destroyed(fake_exec());
  // No destructor ever says the callable went: a leak. The drain waits for it, in vain, briefly.
  ASSERT_EQ(Py_FinalizeEx(), 0);
  gilsan_module_drain_after_finalize(0.05);
  EXPECT_EQ(gilsan::finish_scenario_sanitizer(0), 66);
  const SanitizerFindings findings = folder.read();
  EXPECT_EQ(findings.checkers, std::vector<std::string>{"host-function-lifetime"}) << findings.text;
  EXPECT_NE(findings.text.find("was kept after every graph holding it was destroyed"), std::string::npos)
      << findings.text;
  pymodule::leak_payload(payload);  // Python is gone
}

}  // namespace

// The module as the runner uses it: linked into a program that embeds CPython, registered with
// PyImport_AppendInittab, and drained with gilsan_module_drain_after_finalize after Py_FinalizeEx.
// Each test initializes and finalizes the interpreter once, so each runs in its own process (ctest).
#include "tests/pymodule/embedded_interpreter.h"

namespace {

using gilsan::test::run;
using gilsan::test::start_interpreter;

TEST(EmbeddedModule, HostFunctionsPendingAtFinalizeAreSkippedAndCounted) {
  start_interpreter();
  run("import gilsan\n"
      "stream = gilsan.Stream()\n"
      "stream.work(500)\n"
      "gilsan.host_launch(stream, print, 'must not run')\n"
      "gilsan.host_launch(stream, print, 'must not run either')\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
  EXPECT_EQ(gilsan_module_drain_after_finalize(30.0), 2u);
}

TEST(EmbeddedModule, NothingIsSkippedWhenTheScenarioSynchronized) {
  start_interpreter();
  run("import gilsan\n"
      "stream = gilsan.Stream()\n"
      "ran = []\n"
      "stream.work(20)\n"
      "gilsan.host_launch(stream, ran.append, 1)\n"
      "stream.synchronize()\n"
      "assert ran == [1]\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
  EXPECT_EQ(gilsan_module_drain_after_finalize(30.0), 0u);
}

TEST(EmbeddedModule, TheDrainIsBoundedByItsTimeout) {
  start_interpreter();
  run("import gilsan\n"
      "stream = gilsan.Stream()\n"
      "stream.work(3000)\n"
      "gilsan.host_launch(stream, print, 'late')\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
  // The host function is still behind three seconds of work: a short drain returns before it ran.
  EXPECT_EQ(gilsan_module_drain_after_finalize(0.05), 0u);
  EXPECT_EQ(gilsan_module_drain_after_finalize(30.0), 1u);
}

// Several threads launching, replaying graphs and destroying them, while the driver's threads run the
// trampolines and user-object destructors: the concurrent parts of the module (the interpreter gate, the
// deferred-release queue, the stream payload registry) under one roof, for the TSan build.
TEST(EmbeddedModule, ConcurrentLaunchesAndGraphReleasesAccountForEveryPayload) {
  start_interpreter();
  run("import threading, gilsan\n"
      "def worker(index, results):\n"
      "    stream = gilsan.Stream()\n"
      "    ran = []\n"
      "    for i in range(100):\n"
      "        gilsan.host_launch(stream, ran.append, i)\n"
      "    stream.begin_capture()\n"
      "    gilsan.host_launch(stream, ran.append, 'graph')\n"
      "    graph = stream.end_capture()\n"
      "    exec_ = graph.instantiate()\n"
      "    for _ in range(10):\n"
      "        exec_.launch(stream)\n"
      "    exec_.close()\n"
      "    graph.close()\n"
      "    stream.synchronize()\n"
      "    results[index] = ran\n"
      "results = {}\n"
      "threads = [threading.Thread(target=worker, args=(i, results)) for i in range(4)]\n"
      "for t in threads: t.start()\n"
      "for t in threads: t.join()\n"
      "assert all(results[i] == list(range(100)) + ['graph'] * 10 for i in range(4)), results\n"
      "import time\n"
      "deadline = time.monotonic() + 30\n"
      "while gilsan._stats()['payloads_live'] and time.monotonic() < deadline:\n"
      "    time.sleep(0.01)\n"
      "stats = gilsan._stats()\n"
      "assert stats['payloads_live'] == 0 and stats['payloads_created'] == 404, stats\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
  EXPECT_EQ(gilsan_module_drain_after_finalize(30.0), 0u);
}

}  // namespace

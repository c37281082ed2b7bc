// copy_host and copy_to inside a program that embeds CPython (as the runner does), instrumented as a
// whole: the ASan and TSan builds check the driver-thread side (host copies, worker threads, deferred
// releases) that python3-based tests cannot instrument. Each test has an interpreter of its own.
#include "tests/pymodule/embedded_interpreter.h"

namespace {

using gilsan::test::run;
using gilsan::test::start_interpreter;

// Threads copy concurrently, each with its own stream, through one shared ring with fan-out threads and
// with copy_host, while a holder keeps the GIL in stream.synchronize(hold_gil=True).
TEST(EmbeddedCopy, ConcurrentStagedAndHostCopiesArriveIntactAndReleaseEverything) {
  start_interpreter();
  run("import os, sys, threading, gilsan\n"
      "content = os.urandom(5 * 65536 + 123)\n"
      "device = gilsan.DeviceBuffer(len(content))\n"
      "device.copy_from_host(content)\n"
      "ring = gilsan.PinnedRing(3, 2 * 65536, host_threads=3)\n"
      "def worker(index, results):\n"
      "    stream = gilsan.Stream()\n"
      "    outs = [bytearray(len(content)) for _ in range(4)]\n"
      "    stream.work(5)\n"
      "    for out in outs[:2]:\n"
      "        gilsan.copy_to(out, device, stream, staging=ring)\n"
      "    gilsan.copy_to(outs[2], device, stream)\n"
      "    gilsan.copy_host(stream, outs[3], content)\n"
      "    stream.synchronize(hold_gil=index % 2 == 0)\n"
      "    results[index] = all(out == content for out in outs)\n"
      "    stream.close()\n"
      "results = [None] * 4\n"
      "threads = [threading.Thread(target=worker, args=(i, results)) for i in range(4)]\n"
      "for t in threads: t.start()\n"
      "for t in threads: t.join()\n"
      "assert results == [True] * 4, results\n"
      "ring.close()\n"
      "gilsan._release_deferred()\n"
      "stats = gilsan._stats()\n"
      "assert stats['payloads_live'] == 0 and stats['releases_leaked'] == 0, stats\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
  EXPECT_EQ(gilsan_module_drain_after_finalize(30.0), 0u);
}

// Copies still behind device work when the interpreter exits: the driver runs them after the atexit
// hook closed the gate, so they copy nothing into memory Python may have freed, and leak their views.
TEST(EmbeddedCopy, CopiesPendingAtExitTouchNoPythonMemory) {
  start_interpreter();
  run("import gilsan\n"
      "stream = gilsan.Stream()\n"
      "stream.work(300)\n"
      "for _ in range(3):\n"
      "    gilsan.copy_host(stream, bytearray(100000), bytes(100000))\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
  EXPECT_EQ(gilsan_module_drain_after_finalize(30.0), 0u);
}

}  // namespace

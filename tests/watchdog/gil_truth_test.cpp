// The GIL as the interpreter had it when the snapshot sampled each thread (the stack sampler asks
// PyGILState_Check) wins over what gilsan's own code wrote last, except where the thread says or shows
// that it waits for the GIL.
#include <gtest/gtest.h>

#include "harness/watchdog/thread_facts.h"
#include "tests/watchdog/snapshot_fixtures.h"

namespace gilsan::watchdog::testing {
namespace {

using board::GilState;
using board::Role;

const GilFact& gil_of(const SnapshotFacts& facts, int tid) { return facts.find(tid)->gil; }

TEST(GilTruth, AThreadThatLetTheGilGoDoesNotHoldItWhateverTheBoardSaidLast) {
  SnapshotBuilder builder;
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->gil_state = GilState::Holds;  // the trampoline took it, then a C call let it go
  callback.gil_at_snapshot = GilState::Released;
  const SnapshotFacts facts = derive_facts(builder.snapshot());
  EXPECT_EQ(gil_of(facts, kCallback).state, GilState::Released);
  EXPECT_FALSE(gil_of(facts, kCallback).inferred);
  EXPECT_EQ(gil_of(facts, kCallback).source, "interpreter at the snapshot");
}

TEST(GilTruth, TheInterpretersHolderNeedsNoInference) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));  // no GIL said at entry
  main_thread.gil_at_snapshot = GilState::Holds;
  const SnapshotFacts facts = derive_facts(builder.snapshot());
  EXPECT_EQ(gil_of(facts, kMain).state, GilState::Holds);
  EXPECT_FALSE(gil_of(facts, kMain).inferred);
  EXPECT_TRUE(facts.inferred.empty());  // no holder by elimination
}

TEST(GilTruth, AWaitForTheGilStaysAWaitThoughTheInterpreterSaysNotHeld) {
  SnapshotBuilder builder;
  ThreadSnapshot& said = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  said.board->gil_state = GilState::Waiting;
  said.gil_at_snapshot = GilState::Released;
  ThreadSnapshot& shown = builder.board_thread(kOther, Role::Python);
  shown.native_stack = {frame("take_gil", "/usr/lib/libpython3.12.so"), frame("PyEval_RestoreThread", "/usr/lib/libpython3.12.so")};
  shown.gil_at_snapshot = GilState::Released;
  const SnapshotFacts facts = derive_facts(builder.snapshot());
  EXPECT_EQ(gil_of(facts, kCallback).state, GilState::Waiting);
  EXPECT_EQ(gil_of(facts, kOther).state, GilState::Waiting);
}

TEST(GilTruth, WithoutASampleTheBoardStillSpeaks) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Holds;
  const SnapshotFacts facts = derive_facts(builder.snapshot());
  EXPECT_EQ(gil_of(facts, kMain).state, GilState::Holds);
  EXPECT_EQ(gil_of(facts, kMain).source, "board");
}

}  // namespace
}  // namespace gilsan::watchdog::testing

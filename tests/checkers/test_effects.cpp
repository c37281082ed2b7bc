// The hold / wait rules of checkers/core/effects.h, which the lock-order model and the Valgrind
// announcer both read: each case is a rule the two once wrote separately.
#include "checkers/core/effects.h"

#include <gtest/gtest.h>

namespace gilsan::checkers {
namespace {

constexpr Handle kContext = 0xc0;
constexpr Handle kOtherContext = 0xc1;
constexpr Handle kStream = 0x510;

DriverBehaviour behaviour() {
  DriverBehaviour made;
  made.blocks_while_host_function_runs = [](std::string_view entry) { return entry == "cuMemAlloc"; };
  made.refused_in_host_function = [](std::string_view entry) { return entry == "cuCtxSynchronize"; };
  return made;
}

DriverCallEnter call(std::string_view entry_point, Handle context = kContext) {
  return DriverCallEnter{.thread = 1, .entry_point = entry_point, .context = context};
}

HostFunction host_function(HostFunctionKind kind, Handle context, std::optional<Handle> stream) {
  HostFunction made;
  made.kind = kind;
  made.context = context;
  made.stream = stream;
  return made;
}

TEST(Effects, AHostFunctionHoldsItsCompletionsTheCallbackThreadAndTheDriversLock) {
  const BeginEffects effects(host_function(HostFunctionKind::native, kContext, kStream), false);
  EXPECT_EQ(effects.stream_completion(), PseudoLock::stream_completion(kContext, kStream));
  EXPECT_EQ(effects.context_completion(), PseudoLock::context_completion(kContext));
  EXPECT_EQ(effects.callback_thread(), PseudoLock::callback_thread(kContext));
  EXPECT_EQ(effects.host_function_lock(), PseudoLock::host_function_lock(kContext));
  EXPECT_FALSE(effects.takes_gil());
}

TEST(Effects, AnUnknownContextOrStreamHoldsOnlyWhatIsKnown) {
  const BeginEffects no_context(host_function(HostFunctionKind::native, 0, kStream), false);
  EXPECT_TRUE(no_context.stream_completion());
  EXPECT_FALSE(no_context.context_completion() || no_context.callback_thread() || no_context.host_function_lock());
  const BeginEffects no_stream(host_function(HostFunctionKind::native, kContext, std::nullopt), false);
  EXPECT_FALSE(no_stream.stream_completion());
  EXPECT_TRUE(no_stream.context_completion() && no_stream.callback_thread() && no_stream.host_function_lock());
}

TEST(Effects, APythonHostFunctionTakesTheGilUnlessFinalizationBegan) {
  const HostFunction python = host_function(HostFunctionKind::python, kContext, kStream);
  EXPECT_TRUE(BeginEffects(python, false).takes_gil());
  EXPECT_FALSE(BeginEffects(python, true).takes_gil());
  EXPECT_EQ(takes_gil_at_begin(python, false), BeginEffects(python, false).takes_gil());
}

TEST(Effects, ASynchronizeWaitsForItsStreamsThenItsContext) {
  DriverCallEnter enter = call("cuStreamSynchronize");
  enter.waits.streams = {kStream, 0};
  enter.waits.whole_context = true;
  const DriverCallEffects effects = driver_call_effects(enter, CallerState{}, behaviour());
  ASSERT_EQ(effects.completions.size(), 3u);
  EXPECT_EQ(effects.completions[0], PseudoLock::stream_completion(kContext, kStream));
  EXPECT_EQ(effects.completions[1], PseudoLock::stream_completion(kContext, 0));
  EXPECT_EQ(effects.completions[2], PseudoLock::context_completion(kContext));
  EXPECT_FALSE(effects.blocked_by);
  EXPECT_TRUE(effects.waits());
}

TEST(Effects, AWholeContextWaitOfAnUnknownContextWaitsForNothing) {
  DriverCallEnter enter = call("cuCtxSynchronize", 0);
  enter.waits.whole_context = true;
  EXPECT_FALSE(driver_call_effects(enter, CallerState{}, behaviour()).waits());
}

TEST(Effects, ACallRefusedInAHostFunctionWaitsForNothingThere) {
  DriverCallEnter enter = call("cuCtxSynchronize");
  enter.waits.whole_context = true;
  const Handle contexts[] = {kContext};
  const DriverCallEffects inside =
      driver_call_effects(enter, CallerState{.runs_host_function = true, .host_function_contexts = contexts}, behaviour());
  EXPECT_TRUE(inside.refused);
  EXPECT_FALSE(inside.waits());
  EXPECT_FALSE(driver_call_effects(enter, CallerState{}, behaviour()).refused);
}

TEST(Effects, ABlockingCallWaitsForTheHostFunctionLockUnlessItsOwnHostFunctionHoldsIt) {
  const DriverCallEffects outside = driver_call_effects(call("cuMemAlloc"), CallerState{}, behaviour());
  EXPECT_TRUE(outside.blocked_while_host_function_runs);
  EXPECT_EQ(outside.blocked_by, PseudoLock::host_function_lock(kContext));

  const Handle same[] = {kContext};
  const DriverCallEffects own =
      driver_call_effects(call("cuMemAlloc"), CallerState{.runs_host_function = true, .host_function_contexts = same},
                          behaviour());
  EXPECT_TRUE(own.blocked_while_host_function_runs);
  EXPECT_FALSE(own.blocked_by);

  // A host function of another context does not hold this context's lock (the announcer once let
  // every call from a host function through).
  const Handle other[] = {kOtherContext};
  const DriverCallEffects foreign =
      driver_call_effects(call("cuMemAlloc"), CallerState{.runs_host_function = true, .host_function_contexts = other},
                          behaviour());
  EXPECT_EQ(foreign.blocked_by, PseudoLock::host_function_lock(kContext));

  EXPECT_FALSE(driver_call_effects(call("cuMemAlloc", 0), CallerState{}, behaviour()).blocked_by);
  EXPECT_FALSE(driver_call_effects(call("cuStreamQuery"), CallerState{}, behaviour()).blocked_by);
  EXPECT_FALSE(driver_call_effects(call("cuMemAlloc"), CallerState{}, DriverBehaviour{}).blocked_by);
}

TEST(Effects, TheCallsOwnWordOnTheGilWinsOverTheGilEvents) {
  DriverCallEnter enter = call("cuStreamSynchronize");
  EXPECT_TRUE(driver_call_effects(enter, CallerState{.holds_gil = true}, behaviour()).holds_gil);
  enter.holds_gil = false;
  EXPECT_FALSE(driver_call_effects(enter, CallerState{.holds_gil = true}, behaviour()).holds_gil);
  enter.holds_gil = true;
  EXPECT_TRUE(driver_call_effects(enter, CallerState{.holds_gil = false}, behaviour()).holds_gil);
}

TEST(Effects, APythonLockWaitsWithoutTheGilAndATryLockDoesNotWait) {
  LockAcquire acquire{.thread = 1, .lock = 0x70, .name = "jobs"};
  LockAcquireEffects effects = lock_acquire_effects(acquire);
  EXPECT_EQ(effects.lock, PseudoLock::user_lock(0x70, "jobs"));
  EXPECT_TRUE(effects.waits);
  EXPECT_TRUE(effects.waits_holding_gil);
  acquire.releases_gil_while_waiting = true;
  EXPECT_FALSE(lock_acquire_effects(acquire).waits_holding_gil);
  acquire.can_block = false;
  EXPECT_FALSE(lock_acquire_effects(acquire).waits);
}

// A native lock says whether its thread holds the GIL (the interpreter's word at the acquire), over
// what the GIL events showed: CDLL calls run without it, PyDLL calls with it.
TEST(Effects, ANativeLockWaitsHoldingTheGilExactlyWhenTheInterpreterSaysSo) {
  LockAcquire acquire{.thread = 1, .lock = 0x7f00, .name = "native mutex 0x7f00 (taken in libfoo.so)"};
  acquire.holds_gil = false;
  EXPECT_FALSE(lock_acquire_effects(acquire).waits_holding_gil);
  EXPECT_FALSE(lock_acquire_effects(acquire).holds_gil_for_certain);
  acquire.holds_gil = true;
  EXPECT_TRUE(lock_acquire_effects(acquire).waits_holding_gil);
  EXPECT_TRUE(lock_acquire_effects(acquire).holds_gil_for_certain);
  acquire.releases_gil_while_waiting = true;  // a Python lock's wait lets the GIL go, whatever is held now
  EXPECT_FALSE(lock_acquire_effects(acquire).waits_holding_gil);
  EXPECT_FALSE(lock_acquire_effects(acquire).holds_gil_for_certain);
  acquire = {.thread = 1, .lock = 0x7f00, .name = "unknown"};  // nullopt: as the GIL events say
  EXPECT_TRUE(lock_acquire_effects(acquire).waits_holding_gil);
  EXPECT_FALSE(lock_acquire_effects(acquire).holds_gil_for_certain);
}

TEST(Effects, AContextEndsWithItsDefaultStreamsAndItsOwnPseudoLocks) {
  const auto ended = ended_with_context(kContext);
  for (Handle stream : {Handle{0}, Handle{1}, Handle{2}}) {
    EXPECT_NE(std::find(ended.begin(), ended.end(), PseudoLock::stream_completion(kContext, stream)), ended.end());
  }
  for (const PseudoLock& own : {PseudoLock::callback_thread(kContext), PseudoLock::context_completion(kContext),
                                PseudoLock::host_function_lock(kContext)}) {
    EXPECT_NE(std::find(ended.begin(), ended.end(), own), ended.end());
  }
  // A stream of its own handle is destroyed on its own, not with the context.
  EXPECT_EQ(std::find(ended.begin(), ended.end(), PseudoLock::stream_completion(kContext, kStream)), ended.end());
}

}  // namespace
}  // namespace gilsan::checkers

// classify_cycle alone, on hand-built cycles: the rules and their order (docs/sanitizer.md), and the
// names of the one deadlock-class table (deadlock_classes.inc).
#include <gtest/gtest.h>

#include "checkers/core/deadlock_class.h"

namespace gilsan::checkers {
namespace {

const PseudoLock gil = PseudoLock::gil();
const PseudoLock lock = PseudoLock::user_lock(0x10, "jobs");
PseudoLock stream(Handle handle) { return PseudoLock::stream_completion(0xc1, handle); }
PseudoLock callback_thread(Handle context) { return PseudoLock::callback_thread(context); }
const PseudoLock host_function_lock = PseudoLock::host_function_lock(0xc1);
const PseudoLock context = PseudoLock::context_completion(0xc1);

TEST(ClassifyCycle, OneCompletionIsSelfWait) {
  EXPECT_EQ(classify_cycle({stream(0x10)}), DeadlockClass::callback_self_wait);
  EXPECT_EQ(classify_cycle({context}), DeadlockClass::callback_self_wait);
}

TEST(ClassifyCycle, TheGilWithAnyDriverPseudoLockIsGilDriverInversion) {
  EXPECT_EQ(classify_cycle({gil, stream(0x10)}), DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(classify_cycle({gil, context}), DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(classify_cycle({gil, host_function_lock}), DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(classify_cycle({gil, stream(0x10), callback_thread(0xc1)}),
            DeadlockClass::gil_driver_inversion);
  // The GIL holder waits for a lock whose holder waits for a stream with a Python callback.
  EXPECT_EQ(classify_cycle({gil, lock, stream(0x10)}), DeadlockClass::gil_driver_inversion);
}

TEST(ClassifyCycle, HostFunctionLockWithoutTheGilIsCallbackDriverLock) {
  EXPECT_EQ(classify_cycle({lock, host_function_lock}), DeadlockClass::callback_driver_lock);
}

TEST(ClassifyCycle, UserLockWithoutTheAboveIsUserLockInversion) {
  EXPECT_EQ(classify_cycle({lock, stream(0x10)}), DeadlockClass::user_lock_inversion);
  EXPECT_EQ(classify_cycle({lock, PseudoLock::user_lock(0x20, "b")}),
            DeadlockClass::user_lock_inversion);
  EXPECT_EQ(classify_cycle({gil, lock}), DeadlockClass::user_lock_inversion);
}

// A callback thread in the cycle is serialization, whether one context's or several contexts' in
// turn (deadlock_class.cpp says why); host functions of two contexts that both run and wait for each
// other's streams are no class of the taxonomy.
TEST(ClassifyCycle, CallbackThreadsOfOneOrTwoContextsAreSerialization) {
  EXPECT_EQ(classify_cycle({callback_thread(0xc1), stream(0x10)}),
            DeadlockClass::callback_serialization);
  EXPECT_EQ(classify_cycle({callback_thread(0xc1), PseudoLock::stream_completion(0, 0x20),
                            callback_thread(0xc2), stream(0x10)}),
            DeadlockClass::callback_serialization);
  EXPECT_EQ(classify_cycle({stream(0x10), PseudoLock::stream_completion(0xc2, 0x20)}), DeadlockClass::unknown);
}

TEST(ClassifyCycle, NeverNamesAClassOnlyAHangCanHave) {
  for (const DeadlockClassInfo& row : kDeadlockClasses) {
    if (!row.predicted_by_core) {
      EXPECT_NE(classify_cycle({gil, stream(0x10)}), row.value);
      EXPECT_NE(classify_cycle({stream(0x10)}), row.value);
    }
  }
}

TEST(DeadlockClassNames, EveryClassParsesBackAndTheNamesAreTheScenariosOnes) {
  for (const DeadlockClassInfo& row : kDeadlockClasses) {
    EXPECT_EQ(parse_deadlock_class(to_string(row.value)), row.value) << row.name;
    EXPECT_FALSE(row.description.empty()) << row.name;
  }
  // Scenarios' `expect: deadlock:CLASS` and stored reports spell them so.
  EXPECT_EQ(to_string(DeadlockClass::gil_driver_inversion), "gil-driver-inversion");
  EXPECT_EQ(to_string(DeadlockClass::callback_self_wait), "callback-self-wait");
  EXPECT_EQ(to_string(DeadlockClass::callback_serialization), "callback-serialization");
  EXPECT_EQ(to_string(DeadlockClass::callback_driver_lock), "callback-driver-lock");
  EXPECT_EQ(to_string(DeadlockClass::user_lock_inversion), "user-lock-inversion");
  EXPECT_EQ(to_string(DeadlockClass::finalization), "finalization");
  EXPECT_EQ(to_string(DeadlockClass::gpu_stall), "gpu-stall");
  EXPECT_EQ(to_string(DeadlockClass::unknown), "unknown");
  EXPECT_FALSE(parse_deadlock_class("gil-inversion").has_value());
  EXPECT_FALSE(parse_deadlock_class("gil_driver_inversion").has_value());
  EXPECT_FALSE(kDeadlockClasses[static_cast<std::size_t>(DeadlockClass::finalization)].predicted_by_core);
  EXPECT_FALSE(kDeadlockClasses[static_cast<std::size_t>(DeadlockClass::gpu_stall)].predicted_by_core);
}

}  // namespace
}  // namespace gilsan::checkers

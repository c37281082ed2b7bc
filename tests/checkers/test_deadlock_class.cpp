// classify_cycle alone, on hand-built cycles: the rules and their order (docs/sanitizer.md).
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

TEST(ClassifyCycle, OneContextsCallbackThreadIsSerializationTwoContextsAreUnknown) {
  EXPECT_EQ(classify_cycle({callback_thread(0xc1), stream(0x10)}),
            DeadlockClass::callback_serialization);
  EXPECT_EQ(classify_cycle({callback_thread(0xc1), PseudoLock::stream_completion(0, 0x20),
                            callback_thread(0xc2), stream(0x10)}),
            DeadlockClass::unknown);
}

}  // namespace
}  // namespace gilsan::checkers

// Stream priorities: the context's range (cuCtxGetStreamPriorityRange), the clamping of
// cuStreamCreateWithPriority into it, and what cuStreamGetPriority reports back.
#include <gtest/gtest.h>

#include <thread>

#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

struct PriorityRange {
  int least = 1;      // numerically the greatest value: lower numbers are greater priorities
  int greatest = 1;
};

PriorityRange priority_range() {
  PriorityRange range;
  EXPECT_CU(driver().cuCtxGetStreamPriorityRange(&range.least, &range.greatest));
  return range;
}

// A stream of the current context created with `priority`, destroyed with the scope.
class PriorityStream {
 public:
  explicit PriorityStream(int priority, unsigned flags = CU_STREAM_NON_BLOCKING) {
    EXPECT_CU(driver().cuStreamCreateWithPriority(&stream_, flags, priority));
  }
  ~PriorityStream() {
    if (stream_ != nullptr) driver().cuStreamDestroy(stream_);
  }
  CUstream get() const { return stream_; }

 private:
  CUstream stream_ = nullptr;
};

int priority_of(CUstream stream) {
  int priority = 12345;
  EXPECT_CU(driver().cuStreamGetPriority(stream, &priority));
  return priority;
}

TEST(StreamPriorities, TheRangeGoesFromLeastToGreatestDownwards) {
  PrimaryContext context;
  const PriorityRange range = priority_range();
  EXPECT_EQ(0, range.least) << "the default priority is the least one";
  EXPECT_LT(range.greatest, range.least) << "an H100/H200-class device has several priorities";
  if (on_sim()) {
    EXPECT_EQ(-5, range.greatest);
  }
}

TEST(StreamPriorities, EitherBoundMayBeLeftOut) {
  PrimaryContext context;
  const PriorityRange range = priority_range();
  int least = 1;
  int greatest = 1;
  EXPECT_CU(driver().cuCtxGetStreamPriorityRange(&least, nullptr));
  EXPECT_CU(driver().cuCtxGetStreamPriorityRange(nullptr, &greatest));
  EXPECT_CU(driver().cuCtxGetStreamPriorityRange(nullptr, nullptr));
  EXPECT_EQ(range.least, least);
  EXPECT_EQ(range.greatest, greatest);
}

TEST(StreamPriorities, TheRangeNeedsACurrentContext) {
  PrimaryContext context;  // current on this thread only
  CUresult result = CUDA_SUCCESS;
  std::thread([&] {
    int least = 1;
    int greatest = 1;
    result = driver().cuCtxGetStreamPriorityRange(&least, &greatest);
  }).join();
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_CONTEXT, result);
}

TEST(StreamPriorities, AStreamReportsThePriorityItWasCreatedWithClampedToTheRange) {
  PrimaryContext context;
  const PriorityRange range = priority_range();
  PriorityStream greatest(range.greatest);
  PriorityStream least(range.least);
  PriorityStream above(range.greatest - 10);
  PriorityStream below(range.least + 10, 0);
  PriorityStream between(range.greatest + 1);
  EXPECT_EQ(range.greatest, priority_of(greatest.get()));
  EXPECT_EQ(range.least, priority_of(least.get()));
  EXPECT_EQ(range.greatest, priority_of(above.get()));
  EXPECT_EQ(range.least, priority_of(below.get()));
  EXPECT_EQ(range.greatest + 1, priority_of(between.get()));
  Stream plain;  // cuStreamCreate: the default priority
  EXPECT_EQ(0, priority_of(plain.get()));
}

TEST(StreamPriorities, TheDefaultStreamsHaveTheDefaultPriority) {
  PrimaryContext context;
  EXPECT_EQ(0, priority_of(nullptr));
  EXPECT_EQ(0, priority_of(CU_STREAM_LEGACY));
  EXPECT_EQ(0, priority_of(CU_STREAM_PER_THREAD));
}

TEST(StreamPriorities, GetPriorityNeedsSomewhereToWriteIt) {
  PrimaryContext context;
  Stream stream;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_VALUE, driver().cuStreamGetPriority(stream.get(), nullptr));
}

TEST(StreamPriorities, GetPriorityOfADestroyedStreamIsAnInvalidHandle) {
  SIM_ONLY();  // the real driver may reuse or unmap a destroyed stream's handle
  PrimaryContext context;
  CUstream stream = nullptr;
  ASSERT_CU(driver().cuStreamCreateWithPriority(&stream, CU_STREAM_NON_BLOCKING, -1));
  ASSERT_CU(driver().cuStreamDestroy(stream));
  int priority = 0;
  EXPECT_CU_RESULT(CUDA_ERROR_INVALID_HANDLE, driver().cuStreamGetPriority(stream, &priority));
}

}  // namespace
}  // namespace gilsan::test

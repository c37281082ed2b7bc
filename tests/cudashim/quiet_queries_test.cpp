// The forwarding driver's quiet queries (harness/cudashim/quiet_queries.h) held against what they must
// be: entry points of the driver table (a name that is not one would never match), none that waits
// (checkers/core/synchronizing_calls.h), none that polls, and none the shipped driver profile says
// blocks while a host function runs.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "checkers/sources/profile_behaviour.h"
#include "checkers/core/synchronizing_calls.h"
#include "harness/cudashim/quiet_queries.h"
#include "harness/driver/driver_entry_points.h"

namespace {

#define GILSAN_TEST_ENTRY_NAME(name) #name,
const std::set<std::string> kDriverTable = {GILSAN_DRIVER_ENTRY_POINTS(GILSAN_TEST_ENTRY_NAME)};
#undef GILSAN_TEST_ENTRY_NAME

TEST(QuietQueries, EachIsADriverTableEntryPointThatNeitherWaitsNorBlocks) {
  const auto behaviour = gilsan::checkers::behaviour_from_profile(gilsan::checkers::load_profile_for_sources());
  ASSERT_FALSE(gilsan::cudashim::quiet_queries().empty());
  for (const char* query : gilsan::cudashim::quiet_queries()) {
    EXPECT_TRUE(kDriverTable.contains(query)) << query << " is not in the driver table";
    EXPECT_FALSE(gilsan::synchronizing_wait(query).has_value()) << query << " waits";
    ASSERT_TRUE(behaviour.blocks_while_host_function_runs);
    EXPECT_FALSE(behaviour.blocks_while_host_function_runs(query)) << query << " blocks while a host function runs";
    EXPECT_TRUE(gilsan::cudashim::is_quiet_query(query));
  }
}

TEST(QuietQueries, PollsAndWatchedCallsAreNotQuiet) {
  for (const char* call : {"cuStreamQuery", "cuEventQuery", "cuStreamSynchronize", "cuLaunchHostFunc", "cuCtxSetCurrent"}) {
    EXPECT_FALSE(gilsan::cudashim::is_quiet_query(call)) << call;
  }
  EXPECT_FALSE(gilsan::cudashim::is_quiet_query(nullptr));
}

}  // namespace

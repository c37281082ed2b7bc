// DriverProfile: canonical JSON round trips, and errors that name the file, the line and the key.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "harness/profile/driver_profile.h"

namespace gilsan {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string shipped() { return read_file(GILSAN_DEFAULT_PROFILE_PATH); }

// The message parse_driver_profile throws for `text`, or "" when it parses.
std::string error_for(const std::string& text) {
  try {
    parse_driver_profile(text, "test.json");
  } catch (const DriverProfileError& error) {
    return error.what();
  }
  return "";
}

// `text` with the first occurrence of `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(std::string::npos, at) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The 1-based line of the first occurrence of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle) {
  auto at = text.find(needle);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

TEST(DriverProfile, ShippedFileIsCanonical) {
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  EXPECT_EQ(shipped(), to_json(profile)) << "reformat with to_json";
}

TEST(DriverProfile, RoundTripsThroughJson) {
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  profile.topology.callback_thread = CallbackThreadScope::PerDevice;
  profile.topology.serialized_across_streams = false;
  profile.topology.enqueue_blocks_at_depth = 5;
  profile.inside_host_function["cuStreamSynchronize"] = InsideBehaviour::Hangs;
  profile.while_host_function_runs["cuEventRecord"] = OutsideBehaviour::Blocks;
  profile.unmeasured = {"inside_host_function.cuInit"};
  DriverProfile again = parse_driver_profile(to_json(profile), "round-trip");
  EXPECT_TRUE(profile.same_behaviour(again));
  EXPECT_EQ(profile.unmeasured, again.unmeasured);
  EXPECT_EQ(profile.origin.gpu, again.origin.gpu);
  EXPECT_EQ(profile.origin.cuda_version, again.origin.cuda_version);
  EXPECT_EQ(to_json(profile), to_json(again));
}

TEST(DriverProfile, ShippedProfileMatchesTheMeasuredFacts) {
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  EXPECT_EQ(CallbackThreadScope::PerContext, profile.topology.callback_thread);
  EXPECT_TRUE(profile.topology.serialized_across_streams);
  EXPECT_EQ(InsideBehaviour::NotPermitted, profile.inside("cuCtxGetCurrent"));
  EXPECT_EQ(InsideBehaviour::NotPermitted, profile.inside("cuMemAlloc"));
  EXPECT_EQ(InsideBehaviour::Allowed, profile.inside("cuLaunchHostFunc"));
  EXPECT_EQ(OutsideBehaviour::Blocks, profile.outside("cuMemAlloc"));
  EXPECT_EQ(OutsideBehaviour::Returns, profile.outside("cuMemAllocAsync"));
}

TEST(DriverProfileErrors, MalformedJsonNamesTheLine) {
  std::string text = with(shipped(), "\"cuCtxDestroy\": \"not-permitted\",", "\"cuCtxDestroy\": \"not-permitted\"");
  std::string error = error_for(text);
  EXPECT_TRUE(error.starts_with("test.json:" + std::to_string(line_of(text, "\"cuCtxGetCurrent\"")) + ":")) << error;
  EXPECT_NE(std::string::npos, error.find("not valid JSON")) << error;
}

TEST(DriverProfileErrors, UnknownEntryPointNamesKeyAndLine) {
  std::string text = with(shipped(), "\"cuMemAllocHost\": \"not-permitted\"", "\"cuMemAllocHosts\": \"not-permitted\"");
  std::string error = error_for(text);
  EXPECT_EQ("test.json:" + std::to_string(line_of(text, "cuMemAllocHosts")) +
                ": unknown entry point 'cuMemAllocHosts' in inside_host_function",
            error);
}

TEST(DriverProfileErrors, UnknownTopLevelKeyNamesKeyAndLine) {
  std::string text = with(shipped(), "\"schema\":", "\"colour\": \"blue\",\n  \"schema\":");
  std::string error = error_for(text);
  EXPECT_EQ("test.json:" + std::to_string(line_of(text, "colour")) + ": unknown key 'colour' in profile", error);
}

TEST(DriverProfileErrors, BadBehaviourNamesKeyAndLine) {
  std::string text = with(shipped(), "\"cuMemFree\": \"blocks\"", "\"cuMemFree\": \"sometimes\"");
  std::string error = error_for(text);
  EXPECT_EQ("test.json:" + std::to_string(line_of(text, "sometimes")) +
                ": while_host_function_runs.cuMemFree must be one of: blocks, returns",
            error);
}

TEST(DriverProfileErrors, MissingEntryPointIsNamed) {
  std::string text = with(shipped(), "    \"cuGraphUpload\": \"not-permitted\",\n", "");
  std::string error = error_for(text);
  EXPECT_NE(std::string::npos, error.find("missing entry point 'cuGraphUpload' in inside_host_function")) << error;
  EXPECT_TRUE(error.starts_with("test.json:" + std::to_string(line_of(text, "\"inside_host_function\"")) + ":"))
      << error;
}

TEST(DriverProfileErrors, WrongSchemaIsNamed) {
  std::string error = error_for(with(shipped(), "gilsan-driver-profile/1", "gilsan-driver-profile/0"));
  EXPECT_NE(std::string::npos, error.find("schema is 'gilsan-driver-profile/0'")) << error;
}

TEST(DriverProfileErrors, BadTopologyValueIsNamed) {
  std::string text = with(shipped(), "\"callback_thread\": \"per-context\"", "\"callback_thread\": \"per-stream\"");
  std::string error = error_for(text);
  EXPECT_EQ("test.json:" + std::to_string(line_of(text, "per-stream")) +
                ": topology.callback_thread must be one of: per-context, per-device, per-process",
            error);
}

TEST(DriverProfileErrors, UnreadableFileIsNamed) {
  try {
    load_driver_profile("/nonexistent/profile.json");
    FAIL() << "loaded a file that does not exist";
  } catch (const DriverProfileError& error) {
    EXPECT_EQ(std::string("/nonexistent/profile.json:1: cannot open driver profile"), error.what());
  }
}

}  // namespace
}  // namespace gilsan

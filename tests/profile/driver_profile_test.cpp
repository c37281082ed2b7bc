// DriverProfile: canonical JSON round trips, and errors that name the file, the line and the key.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "harness/profile/driver_profile.h"
#include "tests/profile/file_text.h"
#include "tests/profile/profile_error_text.h"

namespace gilsan {
namespace {

std::string shipped() { return profile_fixtures::file_text(GILSAN_DEFAULT_PROFILE_PATH); }

// The shipped profile's text with the value of `entry` in `section` replaced by `value` (a JSON
// literal), or the whole line removed when `value` is empty; whatever the shipped value is.
std::string with_entry(const std::string& section, const std::string& entry, const std::string& value) {
  std::string text = shipped();
  // The top-level table (two spaces in), not a table of the same name inside eager_call_overrides.
  std::size_t at = text.find("\"" + entry + "\":", text.find("\n  \"" + section + "\""));
  EXPECT_NE(std::string::npos, at) << section << "." << entry;
  if (at == std::string::npos) return text;
  std::size_t line_begin = text.rfind('\n', at) + 1;
  std::size_t line_end = text.find('\n', at) + 1;
  if (value.empty()) return text.erase(line_begin, line_end - line_begin);
  std::size_t value_begin = at + entry.size() + 4;  // after "entry": and a space
  std::size_t value_end = text.find_first_of(",\n", value_begin);
  return text.replace(value_begin, value_end - value_begin, value);
}

// `text` with the first occurrence of `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(std::string::npos, at) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
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

// What shared/facts/driver-h200-580.md measured, call by call. Where it measured a pair of calls that
// blocked together, at least one of the two must block; a probe may say which.
TEST(DriverProfile, ShippedProfileAgreesWithTheMeasuredFacts) {
  DriverProfile profile = load_driver_profile(GILSAN_DEFAULT_PROFILE_PATH);
  EXPECT_EQ(CallbackThreadScope::PerContext, profile.topology.callback_thread);
  EXPECT_TRUE(profile.topology.serialized_across_streams);
  for (const char* entry : {"cuCtxGetCurrent", "cuCtxSetCurrent", "cuMemGetInfo", "cuMemAlloc", "cuMemFree",
                            "cuMemAllocHost", "cuMemcpyHtoD", "cuMemcpyHtoDAsync", "cuLaunchKernel", "cuStreamCreate",
                            "cuCtxSynchronize"})
    EXPECT_EQ(InsideBehaviour::NotPermitted, profile.inside(entry)) << entry;
  // Allowed: these returned, or hung only by waiting for work ordered after the host function.
  for (const char* entry : {"cuStreamQuery", "cuEventRecord", "cuLaunchHostFunc", "cuEventQuery", "cuStreamSynchronize",
                            "cuEventSynchronize"})
    EXPECT_EQ(InsideBehaviour::Allowed, profile.inside(entry)) << entry;
  for (const char* entry : {"cuCtxGetCurrent", "cuDeviceGetAttribute", "cuMemGetInfo", "cuMemAllocAsync",
                            "cuMemFreeAsync", "cuStreamCreate", "cuStreamDestroy", "cuStreamQuery", "cuEventRecord",
                            "cuStreamSynchronize", "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoHAsync", "cuMemsetD8",
                            "cuLaunchHostFunc", "cuStreamWaitEvent"})
    EXPECT_EQ(OutsideBehaviour::Returns, profile.outside(entry)) << entry;
  EXPECT_EQ(OutsideBehaviour::Blocks, profile.outside("cuModuleLoadData"));
  const std::pair<const char*, const char*> blocked_pairs[] = {{"cuMemAlloc", "cuMemFree"},
                                                               {"cuMemAllocHost", "cuMemFreeHost"},
                                                               {"cuMemHostRegister", "cuMemHostUnregister"},
                                                               {"cuCtxCreate", "cuCtxDestroy"}};
  for (const auto& [first, second] : blocked_pairs) {
    EXPECT_TRUE(profile.outside(first) == OutsideBehaviour::Blocks || profile.outside(second) == OutsideBehaviour::Blocks)
        << first << " + " << second << " blocked together";
  }
}

TEST(DriverProfileErrors, MalformedJsonNamesTheLine) {
  // A missing comma after cuCtxCreate's value: the parser stops at the next key.
  std::string text = with_entry("inside_host_function", "cuCtxCreate", "\"allowed\"");
  text = with(text, "\"cuCtxCreate\": \"allowed\",", "\"cuCtxCreate\": \"allowed\"");
  std::string error = error_for(text);
  EXPECT_TRUE(error.starts_with("test.json:" + std::to_string(line_of(text, "\"cuCtxDestroy\"")) + ":")) << error;
  EXPECT_NE(std::string::npos, error.find("not valid JSON")) << error;
}

// Found by the fuzzer in CI: a number no JSON number type holds made the parser throw out_of_range,
// which escaped as an internal error (a crash in the fuzz target) instead of a line naming the number.
TEST(DriverProfileErrors, ANumberTooLargeForJsonNamesItsLine) {
  std::string text = with(shipped(), "\"enqueue_blocks_at_depth\":", "\"enqueue_blocks_at_depth\": 22e2202,\n    \"x\":");
  std::string error = error_for(text);
  EXPECT_TRUE(error.starts_with("test.json:" + std::to_string(line_of(text, "22e2202")) + ": not valid JSON: ")) << error;
  EXPECT_NE(std::string::npos, error.find("number overflow")) << error;
}

TEST(DriverProfileErrors, UnknownEntryPointNamesKeyAndLine) {
  std::string text = with(shipped(), "\"cuMemAllocHost\":", "\"cuMemAllocHosts\":");
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
  std::string text = with_entry("while_host_function_runs", "cuMemFree", "\"sometimes\"");
  std::string error = error_for(text);
  EXPECT_EQ("test.json:" + std::to_string(line_of(text, "sometimes")) +
                ": while_host_function_runs.cuMemFree must be one of: blocks, returns",
            error);
}

TEST(DriverProfileErrors, MissingEntryPointIsNamed) {
  std::string text = with_entry("inside_host_function", "cuGraphUpload", "");
  std::string error = error_for(text);
  EXPECT_NE(std::string::npos, error.find("missing entry point 'cuGraphUpload' in inside_host_function")) << error;
  // The top-level table's line (two spaces in), not that of eager_call_overrides' table of the same name.
  EXPECT_TRUE(error.starts_with("test.json:" + std::to_string(line_of(text, "  \"inside_host_function\": {\n    \"")) + ":"))
      << error;
}

TEST(DriverProfileErrors, WrongSchemaIsNamed) {
  std::string error = error_for(with(shipped(), kDriverProfileSchema, "gilsan-driver-profile/0"));
  EXPECT_NE(std::string::npos, error.find("schema is 'gilsan-driver-profile/0'")) << error;
}

TEST(DriverProfileErrors, BadTopologyValueIsNamed) {
  std::string text = with_entry("topology", "callback_thread", "\"per-stream\"");
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

// `gilsan bench`'s command line (harness/bench/bench_options.h): each flag, and each way one can be wrong.
#include "harness/bench/bench_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace gilsan::bench {
namespace {

std::string usage_error(const std::vector<std::string>& arguments) {
  try {
    parse_bench_options(arguments);
  } catch (const BenchUsageError& error) {
    return error.what();
  }
  return "no error";
}

TEST(BenchOptions, Defaults) {
  const BenchOptions options = parse_bench_options({});
  EXPECT_EQ(options.driver, "sim");
  EXPECT_TRUE(options.implementations.empty());
  EXPECT_FALSE(options.quick);
  EXPECT_FALSE(options.help);
  EXPECT_FALSE(options.json_path);
}

TEST(BenchOptions, TakesEachFlag) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path();
  const std::string json = (folder / "bench.json").string(), svg = (folder / "bench.svg").string();
  const BenchOptions options =
      parse_bench_options({"--driver=real", "--quick", "--impl", "reference,cupy", "--impl=numba-cuda", "--json", json,
                           "--markdown=" + (folder / "bench.md").string(), "--svg", svg});
  EXPECT_EQ(options.driver, "real");
  EXPECT_TRUE(options.quick);
  // --impl given twice adds to the list.
  EXPECT_EQ(options.implementations, (std::vector<std::string>{"reference", "cupy", "numba-cuda"}));
  EXPECT_EQ(options.json_path, json);
  EXPECT_EQ(options.markdown_path, (folder / "bench.md").string());
  EXPECT_EQ(options.svg_path, svg);
  EXPECT_TRUE(parse_bench_options({"--quick", "-h"}).help);
}

TEST(BenchOptions, ABadFlagOrValueIsOneLine) {
  EXPECT_EQ(usage_error({"--frobnicate"}), "unknown option '--frobnicate'");
  EXPECT_EQ(usage_error({"stray"}), "unexpected argument 'stray'");
  EXPECT_EQ(usage_error({"--driver"}), "--driver needs a value");
  EXPECT_EQ(usage_error({"--driver", "gpu"}), "--driver gpu: expected real or sim");
  EXPECT_EQ(usage_error({"--impl", "nope"}), "--impl nope: unknown (known: reference, cupy, cuda-core, cuda-bindings, numba-cuda)");
  EXPECT_EQ(usage_error({"--impl", ","}), "--impl needs at least one implementation");
  EXPECT_EQ(usage_error({"--json", "/nonexistent-gilsan/b.json"}), "--json /nonexistent-gilsan/b.json: no folder /nonexistent-gilsan");
  EXPECT_EQ(usage_error({"--from-json", "/nonexistent-gilsan/b.json"}), "--from-json /nonexistent-gilsan/b.json: cannot be read");
  EXPECT_EQ(usage_error({"--python-env", "/nonexistent-gilsan"}), "--python-env /nonexistent-gilsan: no bin/python there");
}

}  // namespace
}  // namespace gilsan::bench

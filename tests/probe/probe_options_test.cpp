#include "harness/probe/probe_options.h"

#include <gtest/gtest.h>

namespace gilsan::probe {
namespace {

TEST(ProbeOptions, ParsesAProbe) {
  ProbeOptions o = parse_probe_options({"--driver", "sim", "--profile", "in.json", "-o", "out.json", "--markdown",
                                        "out.md", "--jobs", "3", "--enqueue-limit", "64"});
  EXPECT_EQ(o.driver, DriverRequest::Sim);
  EXPECT_EQ(o.profile, "in.json");
  EXPECT_EQ(o.output, "out.json");
  EXPECT_EQ(o.markdown, "out.md");
  EXPECT_EQ(o.jobs, 3);
  EXPECT_EQ(o.enqueue_limit, 64);
  EXPECT_FALSE(o.diff.has_value());
  EXPECT_EQ(o.held_by, "launch-host-func");
  for (const char* kind : {"launch-host-func", "stream-add-callback", "graph-host-node"})
    EXPECT_EQ(parse_probe_options({"--held-by", kind}).held_by, kind);
}

TEST(ProbeOptions, TakesEitherSpellingAndTheRestOfItsFlags) {
  ProbeOptions o = parse_probe_options({"--output=p.json", "--held-by=graph-host-node", "--cudart", "/x/libcudart.so",
                                        "--driver=real", "--jobs=1", "--jobs=2"});
  EXPECT_EQ(o.output, "p.json");
  EXPECT_EQ(o.held_by, "graph-host-node");
  EXPECT_EQ(o.cudart, "/x/libcudart.so");
  EXPECT_EQ(o.driver, DriverRequest::Real);
  EXPECT_EQ(o.jobs, 2);  // given twice, the last counts
  EXPECT_FALSE(o.help);
  EXPECT_TRUE(parse_probe_options({"--driver", "sim", "-h"}).help);
  EXPECT_TRUE(parse_probe_options({"--help"}).help);
}

TEST(ProbeOptions, ParsesADiff) {
  ProbeOptions o = parse_probe_options({"--diff", "a.json", "b.json"});
  ASSERT_TRUE(o.diff.has_value());
  EXPECT_EQ(o.diff->first, "a.json");
  EXPECT_EQ(o.diff->second, "b.json");
}

TEST(ProbeOptions, RejectsBadInputWithOneLine) {
  auto message = [](std::vector<std::string> args) {
    try {
      parse_probe_options(args);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({"--driver", "gpu"}), "--driver: unknown driver 'gpu' (expected auto, real or sim)");
  EXPECT_EQ(message({"--diff", "a.json"}), "--diff needs two profile files");
  EXPECT_EQ(message({"--diff", "a", "b", "-o", "c"}), "--diff takes no other option");
  EXPECT_EQ(message({"--jobs", "0"}), "--jobs expects an integer from 1 to 256, not '0'");
  EXPECT_EQ(message({"--frobnicate"}), "unknown option '--frobnicate'");
  EXPECT_EQ(message({"--jobs=2", "stray"}), "unexpected argument 'stray'");
  EXPECT_EQ(message({"--jobs"}), "--jobs needs a number");
  EXPECT_EQ(message({"-o"}), "-o needs a file name");
  EXPECT_EQ(message({"--enqueue-limit", "2097152"}), "--enqueue-limit expects an integer from 1 to 1048576, not '2097152'");
  EXPECT_EQ(message({"--held-by", "callback"}),
            "--held-by expects launch-host-func, stream-add-callback or graph-host-node, not 'callback'");
  EXPECT_EQ(message({"--diff", "a", "b", "--held-by", "graph-host-node"}), "--diff takes no other option");
}

}  // namespace
}  // namespace gilsan::probe

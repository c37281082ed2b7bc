#include "harness/scenario/child_report.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "tests/runner/read_to_end.h"

namespace gilsan {
namespace {

TEST(ChildReport, EveryRecordSurvivesTheRoundTrip) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  {
    ChildReportWriter writer(ends[1]);
    writer.started("3.11.2");
    writer.unraisable({{"builtins", "RuntimeError"}, "boom\nline two", "<Holder object>", "Exception ignored in"});
    writer.exception({{"__main__", "Custom"}, "Traceback (most recent call last):\n  ...\nCustom: \xff bad byte\n"});
    writer.system_exit(4);
    writer.driver("sim (profile h200-580.159.04)");
    writer.finalized(0, 7);
    writer.skip("needs cupy");
    writer.error("cannot start Python");
  }
  ::close(ends[1]);
  ChildReportReader reader;
  const std::string bytes = read_to_end(ends[0]);
  ::close(ends[0]);
  // Byte by byte: records split anywhere must still come out whole.
  for (char byte : bytes) reader.feed(std::string_view(&byte, 1));
  reader.finish();

  const ChildReport& report = reader.report();
  EXPECT_TRUE(report.protocol_errors.empty()) << report.protocol_errors.front();
  EXPECT_EQ(report.python_version, "3.11.2");
  ASSERT_EQ(report.unraisables.size(), 1u);
  EXPECT_EQ(report.unraisables[0].type.display(), "RuntimeError");
  EXPECT_EQ(report.unraisables[0].message, "boom\nline two");
  EXPECT_EQ(report.unraisables[0].object, "<Holder object>");
  EXPECT_EQ(report.unraisables[0].context, "Exception ignored in");
  ASSERT_TRUE(report.exception.has_value());
  EXPECT_EQ(report.exception->type.display(), "__main__.Custom");
  EXPECT_NE(report.exception->traceback.find("bad byte"), std::string::npos);
  EXPECT_EQ(report.system_exit_code, 4);
  EXPECT_EQ(report.driver, "sim (profile h200-580.159.04)");
  EXPECT_TRUE(report.finalized);
  EXPECT_EQ(report.skipped_host_functions, 7u);
  EXPECT_EQ(report.skip_reason, "needs cupy");
  EXPECT_EQ(report.harness_error, "cannot start Python");
}

TEST(ChildReport, FinalizedWithoutTheModuleHasNoSkipCount) {
  ChildReportReader reader;
  reader.feed("{\"event\":\"finalized\",\"status\":-1,\"skipped_host_functions\":null}\n");
  reader.finish();
  EXPECT_TRUE(reader.report().finalized);
  EXPECT_EQ(reader.report().finalize_status, -1);
  EXPECT_FALSE(reader.report().skipped_host_functions.has_value());
}

TEST(ChildReport, BadLinesBecomeProtocolErrors) {
  ChildReportReader reader;
  reader.feed("not json\n{\"event\":\"launch\"}\n{\"event\":\"skip\"}\n{\"event\":\"started\",\"python\":\"3.12\"}\n");
  reader.feed("{\"event\":\"skip\",\"rea");  // the child died mid-record
  reader.finish();
  const ChildReport& report = reader.report();
  EXPECT_EQ(report.python_version, "3.12");
  EXPECT_FALSE(report.skip_reason.has_value());
  ASSERT_EQ(report.protocol_errors.size(), 4u);
  EXPECT_NE(report.protocol_errors[1].find("unknown event 'launch'"), std::string::npos);
  EXPECT_NE(report.protocol_errors[2].find("no text 'reason'"), std::string::npos);
  EXPECT_NE(report.protocol_errors[3].find("truncated record"), std::string::npos);
}

TEST(ChildReport, AForkOfTheChildWritesNothing) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ChildReportWriter writer(ends[1]);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    writer.skip("written by the fork");
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  writer.started("3.11.2");
  ::close(ends[1]);
  ChildReportReader reader;
  reader.feed(read_to_end(ends[0]));
  ::close(ends[0]);
  reader.finish();
  EXPECT_EQ(reader.report().python_version, "3.11.2");
  EXPECT_FALSE(reader.report().skip_reason.has_value());
}

}  // namespace
}  // namespace gilsan

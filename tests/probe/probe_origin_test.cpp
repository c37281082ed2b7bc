#include "harness/probe/probe_run.h"

#include <gtest/gtest.h>

namespace gilsan::probe {
namespace {

TEST(ProbeOrigin, ReadsTheKernelModuleVersionOfEitherDriverFlavour) {
  EXPECT_EQ(nvidia_driver_version_from("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
                                       "Build  (dvs-builder@U16)  Thu Nov 20 2025\nGCC version:  gcc 12.3\n"),
            "580.159.04");
  EXPECT_EQ(nvidia_driver_version_from("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 "
                                       "UTC 2023\n"),
            "535.104.05");
  EXPECT_EQ(nvidia_driver_version_from("no driver here"), "");
}

}  // namespace
}  // namespace gilsan::probe

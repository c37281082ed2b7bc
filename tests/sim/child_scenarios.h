// The scenarios gilsan_sim_test_child can run (child_main.cpp). Each returns the process's exit status.
#pragma once

#include <cstdio>
#include <string>

namespace gilsan::test {

struct ChildScenario {
  const char* name;
  int (*run)(const std::string& argument);
  bool initializes_driver_itself = false;
};

const ChildScenario* find_child_scenario(const std::string& name);

// Writes one "key value" line and flushes it, so a parent sees it even if the next call hangs.
void report(const std::string& key, const std::string& value);

}  // namespace gilsan::test

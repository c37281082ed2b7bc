// gilsan-probe: the probe on its own, `gilsan-probe ARGS` being `gilsan probe ARGS`.
#include <string>
#include <vector>

#include "harness/probe/probe_command.h"

int main(int argc, char** argv) {
  return gilsan::probe::run_probe_command(std::vector<std::string>(argv + 1, argv + argc));
}

#include "harness/pymodule/module_stats.h"

namespace gilsan::pymodule {

ModuleStats& stats() {
  // Never destroyed: driver threads may count while the process exits.
  static ModuleStats* const instance = new ModuleStats();
  return *instance;
}

}  // namespace gilsan::pymodule

// The driver the module talks to, opened at first use from the environment:
//   GILSAN_DRIVER        auto (default) | real | sim
//   GILSAN_SIM_LIBRARY   the simulated driver library (read by driver_selection)
//   GILSAN_SIM_PROFILE   the simulated driver's profile (read by the simulated driver at cuInit)
// The choice is made once per process; the table is never unloaded (driver threads run its code).
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>

#include "harness/driver/driver_selection.h"
#include "harness/driver/driver_table.h"

namespace gilsan::pymodule {

struct OpenedDriver {
  DriverKind kind = DriverKind::Sim;
  std::string reason;
  int version = 0;             // cuDriverGetVersion, e.g. 13000
  std::string library;         // the library the table was loaded from
  std::string profile_source;  // the simulated driver's profile; empty for the real driver
  std::unique_ptr<DriverTable> table;
};

// GIL held. Opens the driver on first use (with the GIL released while it loads). Null with
// gilsan.DriverError (or ValueError for a bad GILSAN_DRIVER) set when it cannot be opened.
const OpenedDriver* driver_or_raise();

// Shorthand for driver_or_raise()->table.get().
const DriverTable* table_or_raise();

// The table if the driver was opened already, else null; never opens it, never raises.
const DriverTable* opened_driver_table();

// gilsan.driver(): a DriverInfo(kind, reason, version, library, profile_source) named tuple.
PyObject* driver_info(PyObject* module, PyObject* unused);
// Registers the DriverInfo type on the module. False with an exception set on failure.
bool add_driver_info_type(PyObject* module);

}  // namespace gilsan::pymodule

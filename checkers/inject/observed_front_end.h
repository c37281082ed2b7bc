// libgilsan_inject.so in a process whose libcuda.so.1 is one of gilsan's drivers: the simulated one, or
// the forwarding one (harness/cudashim) that `gilsan run -- COMMAND` puts in front of the real driver.
// Their observer hooks see every driver call of the process, including those made inside host
// functions (which CUPTI does not report), and every host function's enqueue, begin and end; so the
// injected sanitizer is fed by the same source as a scenario child (SimSource), and CUPTI is not used.
#pragma once

#include <string>

#include "checkers/inject/inject_runtime.h"

namespace gilsan::checkers::inject {

// The gilsanSimSetObserver of the libcuda.so.1 already loaded in this process, or null when that
// driver is not one of gilsan's.
SetObserver loaded_driver_observer_setter();

// With runtime.sanitizer started: makes the source, installs the observer through `set_observer`,
// and prepares the Python process set-up (python_process_setup.h). Returns "" or why it could not.
std::string start_observed_front_end(InjectRuntime& runtime, SetObserver set_observer);

}  // namespace gilsan::checkers::inject

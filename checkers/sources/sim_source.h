// SimSource: a gilsan driver's observer hooks (harness/driverhooks/driver_observer.h) as an event source of
// the Sanitizer: the simulated driver's, or the forwarding driver's in front of the real one
// (harness/cudashim), so that a process on either gets driver-call and host-function events
// without CUPTI, through the same code.
//
// Every hook runs synchronously on the thread concerned (the caller of a driver call, the driver's
// callback thread for a host function) and calls only the Sanitizer: never the driver, never the
// interpreter. What the hooks cannot see they leave to other sources in the same process: the
// `gilsan` module's trampolines add the GIL events and a nested, better-described host function.
#pragma once

#include <functional>
#include <optional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "checkers/core/sanitizer.h"
#include "checkers/sources/code_address.h"
#include "checkers/sources/completion_waits.h"
#include "checkers/sources/error_names.h"
#include "harness/driverhooks/driver_observer.h"

namespace gilsan::checkers {

struct SimSourceOptions {
  // cuGetErrorName's answers, taken before the observer is installed.
  ErrorNames error_names;
  // Whether the calling thread holds the GIL at a call's entry (e.g. a PythonGilProbe); empty or
  // nullopt: the Sanitizer goes by the GIL events it has seen.
  std::function<std::optional<bool>()> holds_gil;
  // Which calls the driver blocks while a host function runs (the profile's). With the synchronizing
  // calls and every call made inside a host function, those are the calls sent to the Sanitizer; the
  // others (most calls, every launch) cost one lookup. Empty: none blocks.
  std::function<bool(std::string_view entry_point)> blocks_while_host_function_runs;
};

class SimSource {
 public:
  SimSource(Sanitizer& sanitizer, SimSourceOptions options);
  ~SimSource() = default;
  SimSource(const SimSource&) = delete;
  SimSource& operator=(const SimSource&) = delete;

  // The hooks, with `user` pointing at this object. The source must outlive the driver's use of
  // them: remove the observer and let the driver go quiet before destroying it.
  GilsanSimObserver observer();

  // The hook bodies, public so that a test can see exactly what a hook does.
  void api_enter(const GilsanSimApiCall& call);
  void api_exit(const GilsanSimApiCall& call, CUresult result);
  void host_function_begin(const GilsanSimHostFunction& host_function);
  void host_function_end(const GilsanSimHostFunction& host_function);
  void host_function_enqueued(const GilsanSimHostFunction& host_function);

 private:
  // Every field of `described` is set (it may hold the last event's host function).
  void describe_into(const GilsanSimHostFunction& host_function, HostFunction& described);
  // Whether the call can add to the lock-order graph or be a finding (see SimSourceOptions).
  bool matters(const GilsanSimApiCall& call);

  Sanitizer& sanitizer_;
  SimSourceOptions options_;
  CompletionWaits waits_;
  HostFunctionIdentities identities_;
  std::mutex classes_mutex_;
  std::unordered_map<const char*, bool> matters_by_name_;  // by the driver's entry-point string
};

// gilsanSimSetObserver of a driver library (dlopen handle): gilsan's simulated driver and its forwarding
// driver have one; null for any other driver (the real one, bare) or a null handle.
using SetObserver = CUresult (*)(const GilsanSimObserver*);
SetObserver driver_observer_setter(void* driver);
// Installs `observer` (null: removes it) through `set_observer` of the driver `driver_name`. Returns ""
// on success, else one line saying why, the driver named. Every front end installs through this.
std::string install_observer(SetObserver set_observer, const GilsanSimObserver* observer, const std::string& driver_name);
// The same in the driver already loaded from `library_path` (dlopen with RTLD_NOLOAD).
std::string install_sim_observer(const std::string& library_path, const GilsanSimObserver* observer);

}  // namespace gilsan::checkers

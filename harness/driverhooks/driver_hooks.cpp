#include "harness/driverhooks/driver_hooks.h"

#include <cstdint>
#include <cstring>

#include "harness/board/board_writer.h"
#include "harness/driverhooks/observer_registry.h"

namespace gilsan::driverhooks {
namespace {

std::uint64_t as_id(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

board::HostFunctionInfo board_record(const GilsanSimHostFunction& host_function, const char* implementation) {
  board::HostFunctionInfo info;
  info.id = host_function.id;
  info.context = as_id(host_function.context);
  info.stream = as_id(host_function.stream);
  // The driver cannot tell what the function is; a trampoline's nested record says (kind, description).
  info.kind = board::HostFunctionKind::Unknown;
  info.implementation = implementation;
  return info;
}

}  // namespace

bool observed() { return current_observer() != nullptr || board::enabled(); }

void api_enter(const GilsanSimApiCall& call) {
  board::enter_call(call.entry_point, as_id(call.context), as_id(call.stream), as_id(call.event));
  if (const GilsanSimObserver* observer = current_observer(); observer != nullptr && observer->api_enter != nullptr)
    observer->api_enter(observer->user, &call);
}

void api_exit(const GilsanSimApiCall& call, CUresult result) {
  // Where an event was last recorded is what a wait on it waits for: the watchdog needs it for every
  // caller, not only those that note it themselves (the gilsan module does; ctypes and peers do not).
  if (result == CUDA_SUCCESS && call.entry_point != nullptr && std::strcmp(call.entry_point, "cuEventRecord") == 0)
    board::note_event_recorded(as_id(call.event), as_id(call.stream), as_id(call.context));
  if (const GilsanSimObserver* observer = current_observer(); observer != nullptr && observer->api_exit != nullptr)
    observer->api_exit(observer->user, &call, result);
  board::exit_call();
}

bool host_function_pending(const GilsanSimHostFunction& host_function, const char* implementation) {
  return board::note_host_function_enqueued(board_record(host_function, implementation));
}

void host_function_not_launched(const GilsanSimHostFunction& host_function, const char* implementation) {
  board::note_host_function_dropped(host_function.id, implementation);
}

void host_function_enqueued(const GilsanSimHostFunction& host_function) {
  if (const GilsanSimObserver* observer = current_observer();
      observer != nullptr && observer->host_function_enqueued != nullptr)
    observer->host_function_enqueued(observer->user, &host_function);
}

void host_function_begin(const GilsanSimHostFunction& host_function, const char* implementation,
                         bool maybe_pending) {
  // A pooled driver thread may have been a stream executor before: it is a callback thread now.
  board::set_role(board::Role::DriverCallback, as_id(host_function.context));
  board::HostFunctionInfo record = board_record(host_function, implementation);
  record.maybe_pending = maybe_pending;
  board::begin_host_function(record);
  if (const GilsanSimObserver* observer = current_observer();
      observer != nullptr && observer->host_function_begin != nullptr)
    observer->host_function_begin(observer->user, &host_function);
}

void host_function_end(const GilsanSimHostFunction& host_function) {
  if (const GilsanSimObserver* observer = current_observer(); observer != nullptr && observer->host_function_end != nullptr)
    observer->host_function_end(observer->user, &host_function);
  board::end_host_function();
}

}  // namespace gilsan::driverhooks

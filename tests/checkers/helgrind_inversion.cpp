// The GIL/driver inversion on the simulated driver, for `valgrind --tool=helgrind` (see
// check_helgrind.cmake): a host function takes the (simulated) GIL and finishes, then the main
// thread holds the GIL and synchronizes the stream. Nothing hangs; the sanitizer reports the cycle
// itself, and under Valgrind its announcer makes Helgrind report 'lock order ... violated' between
// the GIL and the stream's completion.
#include <cuda.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "checkers/core/sanitizer.h"
#include "checkers/core/valgrind_announcer.h"
#include "checkers/sources/profile_behaviour.h"
#include "checkers/sources/sim_source.h"
#include "checkers/sources/thread_identity.h"
#include "harness/driver/driver_selection.h"
#include "harness/driver/driver_table.h"

namespace {

using namespace gilsan::checkers;

void CUDA_CB callback_taking_the_gil(void* opaque) {
  auto* sanitizer = static_cast<Sanitizer*>(opaque);
  sanitizer->gil_acquire_begin(current_thread_id());
  sanitizer->gil_acquired(current_thread_id());
  sanitizer->gil_released(current_thread_id());
}

// The announcer over many stream lifetimes (a host function on each, then the stream destroyed, as a
// service that makes a stream per request does): an ended stream's byte serves the next stream, so the
// bytes made stay what is live at once.
int bytes_stay_few() {
  const auto announcer = ValgrindAnnouncer::create(DriverBehaviour{});
  if (!announcer) return 0;  // not under Valgrind: nothing is announced
  constexpr Handle kContext = 0xc0;
  constexpr int kLifetimes = 500;
  for (int i = 0; i < kLifetimes; ++i) {
    const Handle stream = 0x10000 + static_cast<Handle>(i);
    HostFunctionBegin begin{.thread = current_thread_id()};
    begin.host_function.context = kContext;
    begin.host_function.stream = stream;
    announcer->host_function_begin(begin);
    announcer->host_function_end(current_thread_id());
    announcer->stream_destroyed(kContext, stream);
  }
  const std::size_t made = announcer->bytes_made();
  std::cerr << "helgrind_inversion: " << made << " announced bytes made over " << kLifetimes << " stream lifetimes\n";
  return made <= 8 ? 0 : 1;  // the GIL, one stream's, the context's three: what is live at once
}

int run() {
  const auto driver = gilsan::DriverTable::load(gilsan::simulated_driver_path());
  CUdevice device = 0;
  CUcontext context = nullptr;
  if (driver->cuInit(0) != CUDA_SUCCESS || driver->cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      driver->cuCtxCreate(&context, nullptr, 0, device) != CUDA_SUCCESS) {
    std::cerr << "helgrind_inversion: the simulated driver did not start\n";
    return 2;
  }
  Sanitizer sanitizer(config_from_options("", Options(), behaviour_from_profile(load_profile_for_sources()), std::cerr));
  SimSource source(sanitizer, SimSourceOptions{});
  const GilsanSimObserver observer = source.observer();
  if (std::string error = install_sim_observer(driver->library_path(), &observer); !error.empty()) {
    std::cerr << "helgrind_inversion: " << error << "\n";
    return 2;
  }
  CUstream stream = nullptr;
  driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  driver->cuLaunchHostFunc(stream, callback_taking_the_gil, &sanitizer);
  driver->cuStreamSynchronize(stream);  // the callback has finished
  sanitizer.gil_acquire_begin(current_thread_id());
  sanitizer.gil_acquired(current_thread_id());
  driver->cuStreamSynchronize(stream);  // with the GIL held: the inversion
  sanitizer.gil_released(current_thread_id());
  install_sim_observer(driver->library_path(), nullptr);
  driver->cuStreamDestroy(stream);
  driver->cuCtxDestroy(context);
  if (sanitizer.finish().exit_code != 66) return 1;
  return bytes_stay_few();
}

// `--announcer=yes|no`: only says whether the announcer is made here (check_helgrind.cmake runs it so
// under Callgrind, whose instruction counts must not include announcements nobody reads).
int check_announcer(const std::string& expected) {
  const bool made = ValgrindAnnouncer::create(DriverBehaviour{}) != nullptr;
  std::cout << "announcer: " << (made ? "yes" : "no") << " (running on Valgrind: "
            << (running_on_valgrind() ? "yes" : "no") << ")\n";
  return (made ? "yes" : "no") == expected ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string option = argc > 1 ? argv[1] : "";
    if (option.rfind("--announcer=", 0) == 0) return check_announcer(option.substr(12));
    return run();
  } catch (const std::exception& error) {
    std::cerr << "helgrind_inversion: " << error.what() << "\n";
    return 2;
  }
}

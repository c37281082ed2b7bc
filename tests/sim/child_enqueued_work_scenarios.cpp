// Child scenarios `enqueued-work CELL`: one enqueued-work cell of the profile (enqueued_work.h), made
// on another thread while a host function of the context is held on S1, in a process of its own so
// that a first use of a kernel is the first in its context. The loading mode is the process's
// CUDA_MODULE_LOADING. Reports whether the call returned, and whether its work on S2 completed, while
// the host function was still held. And `work-enqueued-before-host-function`: what such a cell does not
// cover (below).
#include <atomic>
#include <cstdlib>
#include <functional>
#include <thread>

#include "harness/driver/device_work.h"
#include "tests/sim/child_scenarios.h"
#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

// Well above an unobstructed lazy load or launch on the H200 (milliseconds), far below a hold.
constexpr std::chrono::milliseconds kWhileHeld{1500};
constexpr const char* kSpinKernel = "gilsan_spin_ns";

struct Prepared {
  CUmodule module = nullptr;
  CUlibrary library = nullptr;
  CUkernel kernel = nullptr;
  CUfunction function = nullptr;
  CUdeviceptr memory = 0;
  unsigned long long spin_nanoseconds = 1000;
  void* params[1] = {&spin_nanoseconds};
};

CUresult launch(Prepared& p, CUstream stream) {
  return driver().cuLaunchKernel(p.function, 1, 1, 1, 1, 1, 1, 0, stream, p.params, nullptr);
}

// The cell's call, after its preparation (nothing of which uses the kernel in this context); empty
// for a cell this scenario does not make.
std::function<CUresult()> prepare(const std::string& cell, Prepared& p, CUstream s2) {
  const DriverTable& d = driver();
  const bool module_path = cell == "cuLaunchKernel" || cell == "cuLaunchKernel#first-module-function";
  if (module_path) {
    if (d.cuModuleLoadData(&p.module, test_kernels_ptx()) != CUDA_SUCCESS ||
        d.cuModuleGetFunction(&p.function, p.module, kSpinKernel) != CUDA_SUCCESS)
      return {};
  } else if (cell != "cuMemsetD8Async") {
    if (d.cuLibraryLoadData(&p.library, test_kernels_ptx(), nullptr, nullptr, 0, nullptr, nullptr, 0) != CUDA_SUCCESS ||
        d.cuLibraryGetKernel(&p.kernel, p.library, kSpinKernel) != CUDA_SUCCESS)
      return {};
    p.function = reinterpret_cast<CUfunction>(p.kernel);
  }
  if (cell == "cuLaunchKernel") {  // warm: launched and completed before the host function runs
    if (launch(p, s2) != CUDA_SUCCESS || d.cuStreamSynchronize(s2) != CUDA_SUCCESS) return {};
  }
  if (cell == "cuLaunchKernel" || cell == "cuLaunchKernel#first-module-function" ||
      cell == "cuLaunchKernel#first-library-kernel")
    return [&p, s2] { return launch(p, s2); };
  if (cell == "cuKernelGetFunction#first") return [&p, &d] { return d.cuKernelGetFunction(&p.function, p.kernel); };
  if (cell == "cuMemsetD8Async") {
    if (d.cuMemAlloc(&p.memory, 4096) != CUDA_SUCCESS) return {};
    return [&p, &d, s2] { return d.cuMemsetD8Async(p.memory, 0x5a, 4096, s2); };
  }
  return {};
}

bool drained(CUstream stream, std::chrono::milliseconds within) {
  return eventually([&] { return driver().cuStreamQuery(stream) == CUDA_SUCCESS; }, within);
}

}  // namespace

int child_enqueued_work(const std::string& cell) {
  PrimaryContext context;
  Stream s1;
  Stream s2;
  Prepared prepared;
  std::function<CUresult()> call = prepare(cell, prepared, s2.get());
  if (!call) {
    report("prepared", "no");
    return 3;
  }
  // The calling thread makes the context current before any host function runs.
  std::atomic<bool> ready{false};
  std::atomic<bool> go{false};
  std::atomic<bool> returned{false};
  CUresult result = CUDA_ERROR_UNKNOWN;
  std::thread caller([&] {
    driver().cuCtxSetCurrent(context.get());
    ready = true;
    while (!go) std::this_thread::sleep_for(std::chrono::microseconds(100));
    result = call();
    returned = true;
  });
  eventually([&] { return ready.load(); });
  Gate gate;
  gate.launch(s1.get());
  if (!gate.wait_entered()) return 4;
  go = true;
  const bool call_returned = eventually([&] { return returned.load(); }, kWhileHeld);
  report("call-returned-while-held", call_returned ? "yes" : "no");
  if (call_returned) report("work-completed-while-held", drained(s2.get(), kWhileHeld) ? "yes" : "no");
  gate.open();
  caller.join();
  report("result", result_name(result));
  report("work-completed-after", drained(s2.get(), std::chrono::milliseconds(kHangTimeout)) ? "yes" : "no");
  return 0;
}

// A warm launch on stream X is made while no host function runs, and waits (cuStreamWaitEvent) for
// 300 ms of device work on S2; before its turn comes, a host function on S1 synchronizes an event
// recorded on X behind it. A `work-waits` cell speaks of calls made while a host function of the
// context runs, so this launch's work is not held back by the host function that began after it, and
// the wait ends once the work has run. Reports whether it did (on a hang the process ends itself:
// the callback thread would never return).
int child_work_enqueued_before_host_function(const std::string&) {
  const DriverTable& d = driver();
  PrimaryContext context;
  Stream s1;
  Stream s2;
  Stream x;
  Prepared p;
  Event turn;
  Event done;
  if (d.cuModuleLoadData(&p.module, test_kernels_ptx()) != CUDA_SUCCESS ||
      d.cuModuleGetFunction(&p.function, p.module, kSpinKernel) != CUDA_SUCCESS || launch(p, x.get()) != CUDA_SUCCESS ||
      d.cuStreamSynchronize(x.get()) != CUDA_SUCCESS ||
      launch_device_work(d, s2.get(), std::chrono::milliseconds(300)) != CUDA_SUCCESS ||
      d.cuEventRecord(turn.get(), s2.get()) != CUDA_SUCCESS || d.cuStreamWaitEvent(x.get(), turn.get(), 0) != CUDA_SUCCESS ||
      launch(p, x.get()) != CUDA_SUCCESS || d.cuEventRecord(done.get(), x.get()) != CUDA_SUCCESS) {
    report("prepared", "no");
    return 3;
  }
  struct Waiter {
    CUevent event;
    CUresult result = CUDA_ERROR_UNKNOWN;
    std::atomic<bool> returned{false};
    static void CUDA_CB run(void* data) {
      auto* waiter = static_cast<Waiter*>(data);
      waiter->result = driver().cuEventSynchronize(waiter->event);
      waiter->returned = true;
    }
  } waiter{done.get()};
  if (d.cuLaunchHostFunc(s1.get(), &Waiter::run, &waiter) != CUDA_SUCCESS) {
    report("prepared", "no");
    return 3;
  }
  const bool returned = eventually([&] { return waiter.returned.load(); });
  report("host-function-wait-returned", returned ? "yes" : "no");
  if (!returned) std::_Exit(0);
  report("result", result_name(waiter.result));
  return d.cuStreamSynchronize(s1.get()) == CUDA_SUCCESS ? 0 : 4;
}

}  // namespace gilsan::test

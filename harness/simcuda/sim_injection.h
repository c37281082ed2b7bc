// CUDA_INJECTION64_PATH, as the real driver honours it: the first successful cuInit loads that library
// and calls its InitializeInjection. With it, a tool that injects itself into the real driver (gilsan's
// own libgilsan_inject.so, for one) runs the same way on the simulated one.
#pragma once

namespace gilsan::sim {

// Called by cuInit after the driver initialized, outside its lock; does its work once per process. A
// library that cannot be loaded, or has no InitializeInjection, gets one line on stderr and no more.
void load_injection_library();

}  // namespace gilsan::sim

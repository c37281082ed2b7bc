// A stand-in for libcuda's cuStreamSynchronize with the real driver's default wait (CU_CTX_SCHED_AUTO
// spins when there are more cores than GPUs): a busy loop that writes nothing on the board. The
// scenario spin_in_driver_call.py calls it through ctypes.PyDLL, which keeps the GIL, so the watchdog
// can only tell the deadlock from its native stack. The loop ends after kLongestSpin so that it can
// never outlive a run whose supervisor failed to stop it.
#include <chrono>
#include <cstdint>

namespace {

constexpr std::chrono::seconds kLongestSpin{60};

}  // namespace

// The exported name is the point: the watchdog's frame inference reads it as a driver entry point.
extern "C" __attribute__((visibility("default"))) int cuStreamSynchronize(void* stream) {
  auto give_up = std::chrono::steady_clock::now() + kLongestSpin;
  volatile std::uint64_t spins = reinterpret_cast<std::uintptr_t>(stream);
  // Check the clock only now and then, so that nearly every sample lands in this function itself.
  while (std::chrono::steady_clock::now() < give_up) {
    for (int i = 0; i < 1'000'000; ++i) spins = spins + 1;
  }
  return 0;  // CUDA_SUCCESS
}

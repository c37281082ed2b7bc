#include "harness/driverhooks/observer_registry.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace gilsan::driverhooks {
namespace {

std::atomic<const GilsanSimObserver*> g_observer{nullptr};

// Every observer ever installed, kept so that a hook read just before a replacement stays valid.
// Leaked with the rest of the driver's state.
struct InstalledObservers {
  std::mutex mutex;
  std::vector<std::unique_ptr<GilsanSimObserver>> all;
};

InstalledObservers& installed() {
  static auto* observers = new InstalledObservers();
  return *observers;
}

}  // namespace

const GilsanSimObserver* current_observer() { return g_observer.load(std::memory_order_acquire); }

CUresult install_observer(const GilsanSimObserver* observer) {
  if (observer == nullptr) {
    g_observer.store(nullptr, std::memory_order_release);
    return CUDA_SUCCESS;
  }
  if (observer->abi_version != GILSAN_SIM_OBSERVER_ABI) return CUDA_ERROR_INVALID_VALUE;
  auto& observers = installed();
  std::lock_guard<std::mutex> guard(observers.mutex);
  observers.all.push_back(std::make_unique<GilsanSimObserver>(*observer));
  g_observer.store(observers.all.back().get(), std::memory_order_release);
  return CUDA_SUCCESS;
}

}  // namespace gilsan::driverhooks

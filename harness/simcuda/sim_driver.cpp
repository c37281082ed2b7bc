#include "harness/simcuda/sim_driver.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness/simcuda/sim_builtin_profile.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_memory.h"

namespace gilsan::sim {
namespace {

constexpr int kMaxDevices = 8;
// What an H200 reports: 143771 MiB.
constexpr std::size_t kDeviceMemoryBytes = 143771ull * 1024 * 1024;

class ConfigurationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int device_count_from_environment() {
  const char* text = std::getenv("GILSAN_SIM_DEVICES");
  if (text == nullptr || *text == '\0') return 1;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > kMaxDevices)
    throw ConfigurationError("GILSAN_SIM_DEVICES='" + std::string(text) + "': expected an integer from 1 to " +
                             std::to_string(kMaxDevices));
  return static_cast<int>(value);
}

}  // namespace

SimDriver& SimDriver::instance() {
  // Leaked: driver threads may still use it while the process exits.
  static SimDriver* driver = new SimDriver();
  return *driver;
}

SimDevice* SimDriver::device(int ordinal) const {
  if (ordinal < 0 || ordinal >= device_count()) return nullptr;
  return devices_[static_cast<std::size_t>(ordinal)].get();
}

const char* SimDriver::last_error() const { return last_error_.c_str(); }

CUresult SimDriver::initialize() {
  Lock lock(mutex);
  if (!init_attempted_) {
    init_attempted_ = true;
    init_result_ = configure(lock);
    if (init_result_ == CUDA_SUCCESS) {
      initialized_.store(true, std::memory_order_release);
    } else {
      // The one message a failed cuInit leaves; also available from gilsanSimLastError().
      std::fprintf(stderr, "gilsan simulated driver: cuInit failed: %s\n", last_error_.c_str());
    }
  }
  return init_result_;
}

CUresult SimDriver::configure(Lock&) {
  try {
    int count = device_count_from_environment();
    if (const char* failures = std::getenv("GILSAN_SIM_FAIL"); failures != nullptr && *failures != '\0') {
      try {
        injected_failures_ = InjectedFailures::parse(failures);
      } catch (const std::invalid_argument& error) {
        throw ConfigurationError(error.what());
      }
    }
    if (const char* kernels = std::getenv("GILSAN_SIM_KERNELS"); kernels != nullptr && *kernels != '\0') {
      const std::string value(kernels);
      if (value != "builtin" && value != "empty")
        throw ConfigurationError("GILSAN_SIM_KERNELS is '" + value + "': it takes builtin (the default) or empty");
      unknown_kernels_empty_ = value == "empty";
    }
    const char* path = std::getenv("GILSAN_SIM_PROFILE");
    if (path != nullptr && *path != '\0') {
      profile_ = load_driver_profile(path);
      profile_source_ = path;
    } else {
      profile_source_ = std::string("builtin:") + kBuiltinProfileName;
      profile_ = parse_driver_profile(kBuiltinProfileText, profile_source_);
    }
    profile_json_ = to_json(profile_);
    // Read once, as the real driver reads it at initialization.
    module_loading_ = module_loading_from_environment(std::getenv("CUDA_MODULE_LOADING"));
    policy_.work = profile_.enqueued_work.at(module_loading_);
    // The call tables of the loading mode: under EAGER, the profile's eager overrides applied.
    const CallTableOverrides eager = profile_.eager_overrides();
    const bool is_eager = module_loading_ == ModuleLoading::Eager;
    for (std::size_t i = 0; i < kEntryPointCount; ++i) {
      const std::string name(kEntryPointNames[i]);
      // The error-string lookups are not profiled: they behave the same everywhere.
      auto inside = profile_.inside_host_function.find(name);
      auto outside = profile_.while_host_function_runs.find(name);
      policy_.inside[i] = inside == profile_.inside_host_function.end() ? InsideBehaviour::Allowed : inside->second;
      bool blocks = outside != profile_.while_host_function_runs.end() && outside->second == OutsideBehaviour::Blocks;
      if (is_eager) {
        if (auto found = eager.inside_host_function.find(name); found != eager.inside_host_function.end())
          policy_.inside[i] = found->second;
        if (auto found = eager.while_host_function_runs.find(name); found != eager.while_host_function_runs.end())
          blocks = found->second == OutsideBehaviour::Blocks;
      }
      policy_.outside[i] = blocks ? WorkBehaviour::CallBlocks : WorkBehaviour::Proceeds;
      for (const EnqueuedWorkCell& cell : enqueued_work_cells()) {
        if (cell.entry_point != name) continue;
        if (cell.first_use) policy_.may_be_first_use[i] = true;
        else policy_.outside[i] = policy_.work.at(cell.name);
      }
    }
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      auto device = std::make_unique<SimDevice>();
      device->ordinal = ordinal;
      device->name = profile_.origin.gpu + " (gilsan simulated)";
      device->total_memory = kDeviceMemoryBytes;
      device->default_pool = std::make_shared<SimMemPool>();
      device->default_pool->device = device.get();
      device->default_pool->is_default = true;
      device->current_pool = device->default_pool;
      mem_pools.add(device->default_pool);
      devices_.push_back(std::move(device));
    }
    return CUDA_SUCCESS;
  } catch (const DriverProfileError& error) {
    last_error_ = error.what();
  } catch (const ConfigurationError& error) {
    last_error_ = error.what();
  }
  return CUDA_ERROR_INVALID_VALUE;
}

}  // namespace gilsan::sim

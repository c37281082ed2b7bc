#include "harness/profile/enqueued_work.h"

#include <algorithm>

namespace gilsan {
namespace {

// The cells name exactly what the probe calls (harness/probe/work_matrix.cpp has the recipe of each).
const std::vector<EnqueuedWorkCell> kCells = {
    {"cuLaunchKernel", "cuLaunchKernel", false,
     "a later (warm) launch on another stream of a function launched and completed before"},
    {"cuLaunchKernel#first-module-function", "cuLaunchKernel", true,
     "the first launch in the context of a function from cuModuleLoadData + cuModuleGetFunction"},
    {"cuLaunchKernel#first-library-kernel", "cuLaunchKernel", true,
     "the first launch in the context of a cuLibraryLoadData + cuLibraryGetKernel kernel, passed to "
     "cuLaunchKernel as its CUfunction",
     false, false},
    {"cuKernelGetFunction#first", "cuKernelGetFunction", true,
     "the first cuKernelGetFunction of a library kernel in the context"},
    {"cuLibraryLoadData", "cuLibraryLoadData", false, "loading a library with the kernel"},
    {"cuModuleLoadData", "cuModuleLoadData", false, "loading a module with the kernel"},
    {"cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync", false, "a pinned-to-device copy on another stream"},
    {"cuMemsetD8Async", "cuMemsetD8Async", false, "a memset on another stream"},
    {"cuEventRecord", "cuEventRecord", false, "an event record on another stream"},
    {"cuGraphLaunch", "cuGraphLaunch", false, "a launch on another stream of a graph of one host node", true},
    {"cuLaunchHostFunc", "cuLaunchHostFunc", false, "a host function on another stream", true},
    {"cudaLaunchKernel#first-runtime-kernel", "cudaLaunchKernel", true,
     "the first cudaLaunchKernel in the context of a kernel registered with the runtime (the fatbin "
     "registration nvcc generates), on another stream",
     false, false, true},
};

template <typename Enum, std::size_t N>
std::optional<Enum> named(const std::pair<const char*, Enum> (&names)[N], std::string_view name) {
  for (const auto& [text, value] : names)
    if (name == text) return value;
  return std::nullopt;
}

template <typename Enum, std::size_t N>
const char* name_of(const std::pair<const char*, Enum> (&names)[N], Enum value) {
  for (const auto& [text, v] : names)
    if (v == value) return text;
  return "?";
}

const std::pair<const char*, ModuleLoading> kModeNames[] = {{"lazy", ModuleLoading::Lazy},
                                                            {"eager", ModuleLoading::Eager}};
const std::pair<const char*, WorkBehaviour> kBehaviourNames[] = {{"proceeds", WorkBehaviour::Proceeds},
                                                                 {"work-waits", WorkBehaviour::WorkWaits},
                                                                 {"call-blocks", WorkBehaviour::CallBlocks}};

}  // namespace

const std::vector<EnqueuedWorkCell>& enqueued_work_cells() { return kCells; }

const EnqueuedWorkCell* find_enqueued_work_cell(std::string_view name) {
  auto it = std::find_if(kCells.begin(), kCells.end(), [&](const EnqueuedWorkCell& cell) { return cell.name == name; });
  return it == kCells.end() ? nullptr : &*it;
}

EnqueuedWorkTable enqueued_work_from_calls(const std::map<std::string, bool>& entry_point_blocks,
                                           bool host_functions_serialized) {
  EnqueuedWorkTable table;
  for (const auto& cell : kCells) {
    auto it = entry_point_blocks.find(cell.entry_point);
    const bool blocks = it != entry_point_blocks.end() && it->second;
    const bool waits = cell.work_is_host_function && host_functions_serialized;
    table[cell.name] = blocks ? WorkBehaviour::CallBlocks : waits ? WorkBehaviour::WorkWaits : WorkBehaviour::Proceeds;
  }
  return table;
}

WorkBehaviour most_restrictive(WorkBehaviour a, WorkBehaviour b) { return std::max(a, b); }

const char* to_string(ModuleLoading mode) { return name_of(kModeNames, mode); }
const char* to_string(WorkBehaviour behaviour) { return name_of(kBehaviourNames, behaviour); }
std::optional<ModuleLoading> module_loading_named(std::string_view name) { return named(kModeNames, name); }
std::optional<WorkBehaviour> work_behaviour_named(std::string_view name) { return named(kBehaviourNames, name); }

const std::vector<ModuleLoading>& module_loading_modes() {
  static const std::vector<ModuleLoading> modes = {ModuleLoading::Lazy, ModuleLoading::Eager};
  return modes;
}

ModuleLoading module_loading_from_environment(const char* value) {
  return value != nullptr && std::string_view(value) == "EAGER" ? ModuleLoading::Eager : ModuleLoading::Lazy;
}

const char* module_loading_variable_value(ModuleLoading mode) {
  return mode == ModuleLoading::Eager ? "EAGER" : "LAZY";
}

}  // namespace gilsan

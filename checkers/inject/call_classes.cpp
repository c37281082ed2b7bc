#include "checkers/inject/call_classes.h"

#include <string_view>
#include <utility>

#include "checkers/sources/entry_point_names.h"

namespace gilsan::checkers::inject {
namespace {

CallKind kind_of(std::string_view base, std::string_view symbol) {
  static constexpr std::pair<std::string_view, CallKind> kKinds[] = {
      {"cuLaunchHostFunc", CallKind::launch_host_func},
      {"cuGraphAddHostNode", CallKind::graph_add_host_node},
      {"cuGraphHostNodeSetParams", CallKind::graph_host_node_set_params},
      {"cuGraphExecHostNodeSetParams", CallKind::graph_exec_host_node_set_params},
      {"cuGraphNodeSetParams", CallKind::graph_node_set_params},
      {"cuGraphExecNodeSetParams", CallKind::graph_exec_node_set_params},
      {"cuStreamSynchronize", CallKind::stream_synchronize},
      {"cuEventSynchronize", CallKind::event_synchronize},
      {"cuCtxSynchronize", CallKind::context_synchronize},
      {"cuEventRecord", CallKind::event_record},
      {"cuEventRecordWithFlags", CallKind::event_record},
      {"cuEventDestroy", CallKind::event_destroy},
      {"cuStreamDestroy", CallKind::stream_destroy},
      {"cuCtxDestroy", CallKind::context_destroy},
      {"cuCtxCreate", CallKind::context_made},
      {"cuDevicePrimaryCtxRetain", CallKind::context_made},
      {"cuStreamBeginCapture", CallKind::capture_begin},
      {"cuStreamBeginCaptureToGraph", CallKind::capture_begin},
      {"cuStreamEndCapture", CallKind::capture_end},
  };
  // Two layouts share one name: the parameter struct follows the exported symbol.
  if (base == "cuGraphAddNode") {
    return symbol.starts_with("cuGraphAddNode_v2") ? CallKind::graph_add_node_v2
                                                   : CallKind::graph_add_node;
  }
  for (const auto& [name, kind] : kKinds) {
    if (name == base) return kind;
  }
  return CallKind::other;
}

}  // namespace

CallClass classify_call(const char* symbol, const DriverBehaviour& behaviour) {
  const std::string_view name = symbol != nullptr ? symbol : "";
  const EntryPointName split = split_entry_point_name(name);
  CallClass result;
  result.entry_point = std::string(split.base);
  result.per_thread = split.per_thread;
  result.versioned = split.base.size() + (split.per_thread ? 5 : 0) < name.size();
  result.kind = kind_of(split.base, name);
  result.blocks_while_host_function_runs =
      behaviour.blocks_while_host_function_runs &&
      behaviour.blocks_while_host_function_runs(result.entry_point);
  result.refused_in_host_function =
      behaviour.refused_in_host_function && behaviour.refused_in_host_function(result.entry_point);
  static constexpr std::string_view kErrorLookups[] = {"cudaGetErrorName", "cudaGetErrorString",
                                                       "cudaGetLastError", "cudaPeekAtLastError"};
  for (std::string_view lookup : kErrorLookups) result.error_lookup |= split.base == lookup;
  return result;
}

const CallClass& CallClassCache::get(std::uint32_t callback_id, const char* symbol) {
  if (callback_id < kCachedIds) {
    if (const CallClass* cached = by_id_[callback_id].load(std::memory_order_acquire)) return *cached;
  }
  std::lock_guard lock(mutex_);
  if (callback_id < kCachedIds) {
    if (const CallClass* cached = by_id_[callback_id].load(std::memory_order_acquire)) return *cached;
  }
  if (callback_id >= kCachedIds) {
    if (const auto found = beyond_array_.find(callback_id); found != beyond_array_.end()) {
      return *found->second;
    }
  }
  classes_.push_back(classify_call(symbol, behaviour_));
  const CallClass* made = &classes_.back();
  if (callback_id < kCachedIds) {
    by_id_[callback_id].store(made, std::memory_order_release);
  } else {
    beyond_array_.emplace(callback_id, made);
  }
  return *made;
}

}  // namespace gilsan::checkers::inject

#include "harness/simcuda/sim_context.h"

#include <vector>

#include "harness/simcuda/sim_callback_thread.h"
#include "harness/simcuda/sim_event.h"
#include "harness/simcuda/sim_graph.h"
#include "harness/simcuda/sim_memory.h"
#include "harness/simcuda/sim_module.h"
#include "harness/simcuda/sim_stream.h"
#include "harness/simcuda/sim_thread_state.h"

namespace gilsan::sim {
namespace {

// Each thread's context stack holds handles: a handle whose context was destroyed stays on the stack
// and is reported as invalid when used, like on the real driver.
std::vector<CUcontext>& context_stack() { return this_thread_state().context_stack; }

// Removes from `table` every object whose `context` is `context`.
template <typename Table>
void forget_objects_of(Table& table, const SimContext* context) {
  std::vector<const void*> doomed;
  table.for_each([&](const auto& object) {
    if (object->context.get() == context) doomed.push_back(object.get());
  });
  for (const void* handle : doomed) table.remove(handle);
}

}  // namespace

std::shared_ptr<SimContext> create_context(SimDevice& device, bool is_primary) {
  auto& driver = SimDriver::instance();
  auto context = std::make_shared<SimContext>();
  context->device = &device;
  context->is_primary = is_primary;
  context->legacy_stream = create_stream(context, StreamKind::Legacy, 0, 0);
  driver.contexts.add(context);
  return context;
}

void revive_primary_context(const std::shared_ptr<SimContext>& context) {
  context->closing = false;
  context->destroyed = false;
  context->sticky_error = CUDA_SUCCESS;
  context->legacy_stream = create_stream(context, StreamKind::Legacy, 0, 0);
  SimDriver::instance().contexts.add(context);
}

void destroy_context(Lock& lock, const std::shared_ptr<SimContext>& context) {
  auto& driver = SimDriver::instance();
  driver.contexts.remove(context.get());
  context->closing = true;
  // Like the real driver, destruction waits for the context's outstanding work.
  wait_for(lock, completion_of(*context));

  std::vector<std::shared_ptr<SimStream>> streams;
  for (auto& [key, stream] : context->streams) streams.push_back(stream);
  for (auto& stream : streams) {
    retire_stream(*stream);
    if (stream->kind == StreamKind::Created) driver.streams.remove(stream.get());
  }
  context->streams.clear();
  context->per_thread_streams.clear();
  context->legacy_stream.reset();

  forget_objects_of(driver.events, context.get());
  forget_objects_of(driver.graph_execs, context.get());
  std::vector<const void*> doomed;
  driver.modules.for_each([&](const auto& module) {
    if (module->context == context.get()) doomed.push_back(module.get());
  });
  for (const void* handle : doomed) driver.modules.remove(handle);
  doomed.clear();
  driver.functions.for_each([&](const auto& function) {
    if (function->context == context.get()) doomed.push_back(function.get());
  });
  for (const void* handle : doomed) driver.functions.remove(handle);
  driver.kernels.for_each([&](const auto& kernel) { kernel->per_context.erase(context.get()); });

  if (context->callback_thread) context->callback_thread->retire();
  context->callback_thread.reset();
  release_context_memory(*context);
  context->destroyed = true;
  driver.progress.notify_all();
}

std::shared_ptr<SimContext> find_context(CUcontext handle) { return SimDriver::instance().contexts.find(handle); }

std::shared_ptr<SimContext> current_context() {
  if (!context_stack().empty()) return find_context(context_stack().back());
  if (const CallbackScope* callback = current_callback(); callback != nullptr && callback->context != nullptr)
    return find_context(callback->context->handle());
  return nullptr;
}

CUcontext current_context_handle() { return context_stack().empty() ? nullptr : context_stack().back(); }

void push_current_context(CUcontext context) { context_stack().push_back(context); }

CUcontext pop_current_context() {
  if (context_stack().empty()) return nullptr;
  CUcontext top = context_stack().back();
  context_stack().pop_back();
  return top;
}

void replace_current_context(CUcontext context) {
  if (context == nullptr) {
    pop_current_context();
  } else if (context_stack().empty()) {
    context_stack().push_back(context);
  } else {
    context_stack().back() = context;
  }
}

}  // namespace gilsan::sim

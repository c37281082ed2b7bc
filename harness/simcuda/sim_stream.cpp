#include "harness/simcuda/sim_stream.h"

#include <atomic>
#include <thread>

#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_board_hooks.h"
#include "harness/simcuda/sim_callback_thread.h"
#include "harness/simcuda/sim_capture.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_execute.h"
#include "harness/simcuda/sim_thread_pool.h"
#include "harness/simcuda/sim_thread_state.h"

namespace gilsan::sim {
namespace {

// Implicit ordering around the legacy NULL stream: its work waits for everything already enqueued on
// the context's blocking streams, and their work waits for everything already on it.
std::vector<Dependency> legacy_barrier(const SimStream& stream) {
  std::vector<Dependency> after;
  const SimContext& context = *stream.context;
  if (stream.kind == StreamKind::Legacy) {
    for (const auto& [key, other] : context.streams) {
      if (other.get() != &stream && other->blocking() && !other->idle())
        after.push_back(Dependency{other, other->enqueued});
    }
  } else if (stream.blocking() && context.legacy_stream && !context.legacy_stream->idle()) {
    after.push_back(Dependency{context.legacy_stream, context.legacy_stream->enqueued});
  }
  return after;
}


void run_executor(const std::shared_ptr<SimStream>& self) {
  board_executor_started();
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  for (;;) {
    self->wake.wait(lock, [&] { return !self->queue.empty() || self->retired; });
    if (self->queue.empty()) break;
    driver.progress.wait(lock, [&] {
      const StreamOp& next = *self->queue.front();
      return satisfied(next.after) && (!next.waits_for_host_functions || self->context->host_functions_running == 0);
    });
    std::unique_ptr<StreamOp> op = std::move(self->queue.front());
    self->queue.pop_front();
    if (self->context->sticky_error != CUDA_SUCCESS) {
      // A faulted context runs nothing more; its queued host functions are never called.
      discard(op->work, *self);
    } else {
      lock.unlock();
      execute(op->work, *self);
      board_work_item_completed();
      lock.lock();
    }
    self->completed = op->sequence;
    driver.progress.notify_all();
    // Dropping the operation may release the last hold on an executable graph (and so user objects).
    lock.unlock();
    op.reset();
    lock.lock();
  }
  self->executor_running = false;
  self->context->streams.erase(self.get());
}

}  // namespace

SimStream::~SimStream() = default;

CUstream SimStream::handle() const {
  switch (kind) {
    case StreamKind::Legacy: return nullptr;
    case StreamKind::PerThread: return CU_STREAM_PER_THREAD;
    case StreamKind::Created: break;
  }
  return reinterpret_cast<CUstream>(const_cast<SimStream*>(this));
}

std::shared_ptr<SimStream> create_stream(const std::shared_ptr<SimContext>& context, StreamKind kind, unsigned flags,
                                         int priority) {
  auto stream = std::make_shared<SimStream>();
  stream->context = context;
  stream->kind = kind;
  stream->flags = flags;
  stream->priority = priority;
  context->streams[stream.get()] = stream;
  if (kind == StreamKind::Created) SimDriver::instance().streams.add(stream);
  return stream;
}

CUresult resolve_stream(CUstream handle, DefaultStream default_stream, std::shared_ptr<SimStream>& out) {
  out.reset();
  bool legacy = handle == CU_STREAM_LEGACY || (handle == nullptr && default_stream == DefaultStream::Legacy);
  bool per_thread = handle == CU_STREAM_PER_THREAD || (handle == nullptr && default_stream == DefaultStream::PerThread);
  if (legacy || per_thread) {
    std::shared_ptr<SimContext> context = current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    if (legacy) {
      out = context->legacy_stream;
    } else {
      ThreadState& thread = this_thread_state();
      auto& slot = context->per_thread_streams[thread.token];
      if (!slot) {
        slot = create_stream(context, StreamKind::PerThread, 0, 0);
        thread.per_thread_streams.push_back(context->handle());
      }
      out = slot;
    }
    return CUDA_SUCCESS;
  }
  out = SimDriver::instance().streams.find(handle);
  return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult submit(Lock&, SimStream& stream, WorkItem work, std::vector<Dependency> after) {
  if (stream.context->sticky_error != CUDA_SUCCESS) return stream.context->sticky_error;
  if (stream.capture) return capture_work(stream, std::move(work));
  if (stream.kind == StreamKind::Legacy && context_has_blocking_capture(*stream.context))
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  enqueue(stream, std::move(work), std::move(after));
  return CUDA_SUCCESS;
}

void enqueue(SimStream& stream, WorkItem work, std::vector<Dependency> after) {
  auto op = std::make_unique<StreamOp>();
  op->after = legacy_barrier(stream);
  for (auto& dependency : after) op->after.push_back(std::move(dependency));
  op->work = std::move(work);
  op->waits_for_host_functions = current_call_work_waits();
  op->sequence = ++stream.enqueued;
  stream.queue.push_back(std::move(op));
  if (!stream.executor_running) {
    run_on_driver_thread([self = stream.shared_from_this()] { run_executor(self); });
    stream.executor_running = true;
  }
  stream.wake.notify_one();
}

std::vector<Dependency> completion_of(const SimStream& stream) {
  std::vector<Dependency> all = legacy_barrier(stream);
  auto self = const_cast<SimStream&>(stream).shared_from_this();
  all.push_back(Dependency{self, stream.enqueued});
  return all;
}

std::vector<Dependency> completion_of(const SimContext& context) {
  std::vector<Dependency> all;
  for (const auto& [key, stream] : context.streams) all.push_back(Dependency{stream, stream->enqueued});
  return all;
}

bool satisfied(const std::vector<Dependency>& dependencies) {
  for (const auto& dependency : dependencies)
    if (dependency.stream->completed < dependency.sequence) return false;
  return true;
}

void wait_for(Lock& lock, const std::vector<Dependency>& dependencies) {
  SimDriver::instance().progress.wait(lock, [&] { return satisfied(dependencies); });
}

// A thread's per-thread default streams end with it, as on the real driver: queued work still runs,
// and a new thread (which may get the same std::thread::id) starts afresh.
void retire_per_thread_streams(const ThreadState& state) {
  auto& driver = SimDriver::instance();
  Lock lock(driver.mutex);
  for (CUcontext handle : state.per_thread_streams) {
    std::shared_ptr<SimContext> context = find_context(handle);
    if (!context) continue;
    auto it = context->per_thread_streams.find(state.token);
    if (it == context->per_thread_streams.end()) continue;
    retire_stream(*it->second);
    context->per_thread_streams.erase(it);
  }
}

void retire_stream(SimStream& stream) {
  stream.retired = true;
  if (stream.own_callback_thread) stream.own_callback_thread->retire();
  if (!stream.executor_running && stream.context) stream.context->streams.erase(&stream);
  stream.wake.notify_one();
}

}  // namespace gilsan::sim

#include "harness/pymodule/deferred_release.h"

#include <mutex>
#include <vector>

#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/module_stats.h"

namespace gilsan::pymodule {
namespace {

struct ReleaseQueue {
  std::mutex mutex;
  std::vector<HostPayload*> payloads;
  bool call_scheduled = false;  // a pending call that will empty the queue is registered
};

// Never destroyed: driver threads hand payloads over while the process exits.
ReleaseQueue& release_queue() {
  static ReleaseQueue* const instance = new ReleaseQueue();
  return *instance;
}

int release_pending_call(void*) {
  run_deferred_releases();
  return 0;
}

// Runs under the interpreter gate's lock, so the interpreter cannot finalize in the middle.
void queue_for_release(void* argument) {
  ReleaseQueue& queue = release_queue();
  bool schedule = false;
  {
    std::lock_guard lock(queue.mutex);
    queue.payloads.push_back(static_cast<HostPayload*>(argument));
    schedule = !queue.call_scheduled;
    queue.call_scheduled = true;
  }
  // Py_AddPendingCall needs neither the GIL nor a thread state. When its table is full, the next
  // handover or the next module call empties the queue instead.
  if (schedule && Py_AddPendingCall(&release_pending_call, nullptr) != 0) {
    std::lock_guard lock(release_queue().mutex);
    queue.call_scheduled = false;
  }
}

}  // namespace

void release_later(HostPayload* payload) {
  // Nothing Python in it (a native function's user_data copy alone): free it here, no GIL needed.
  if (payload->callable == nullptr && payload->args == nullptr && payload->kwargs == nullptr) {
    release_payload(payload);
    return;
  }
  stats().releases_deferred.fetch_add(1);
  if (!run_while_python_alive(&queue_for_release, payload)) leak_payload(payload);
}

void run_deferred_releases() {
  std::vector<HostPayload*> payloads;
  {
    ReleaseQueue& queue = release_queue();
    std::lock_guard lock(queue.mutex);
    payloads.swap(queue.payloads);
    queue.call_scheduled = false;
  }
  for (HostPayload* payload : payloads) release_payload(payload);
}

}  // namespace gilsan::pymodule

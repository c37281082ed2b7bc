#include "checkers/inject/wrapped_host_function.h"

#include "checkers/inject/inject_handler.h"

namespace gilsan::checkers::inject {

void release_record(WrappedHostFunction* record) {
  if (!record->one_shot || record->references.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // A pooled slot is free now (references 0); its thread takes it again with an acquire load.
  if (!record->pooled) delete record;
}

void discard_record(WrappedHostFunction* record) {
  record->references.store(1, std::memory_order_relaxed);
  release_record(record);
}

void CUDA_CB run_wrapped_host_function(void* opaque) {
  auto* record = static_cast<WrappedHostFunction*>(opaque);
  InjectHandler& handler = *record->handler;
  OwnTimeStats* stats = record->self_test ? nullptr : handler.stats();  // the application's host functions only
  // The clock is read only with stats=1.
  const auto now = [stats] { return stats != nullptr ? OwnTimeStats::Clock::now() : OwnTimeStats::Clock::time_point(); };
  const auto start = now();
  handler.wrapped_begin(*record);
  const auto user_start = now();
  record->user_function(record->user_data);
  const auto user_end = now();
  handler.wrapped_end(*record);
  release_record(record);
  if (stats != nullptr) stats->add_wrapper((user_start - start) + (now() - user_end));
}

void CUDA_CB run_begin_marker(void* opaque) {
  auto* record = static_cast<WrappedHostFunction*>(opaque);
  InjectHandler& handler = *record->handler;
  handler.wrapped_begin(*record);
  std::uint8_t queued = kBeginQueued;
  if (record->markers.compare_exchange_strong(queued, kBeginRan, std::memory_order_acq_rel)) return;
  // No end marker will come (its launch failed): the run ends here, on the callback thread, so that
  // its begin and end are both seen and the application's function runs after them, unwatched. A
  // one-shot record is then finished (a lasting one is left alone by release_record); a captured one
  // ends here at every launch of its graph, or the callback thread would look busy for good.
  if (queued == kEndLost || queued == kLastingEndLost) {
    handler.wrapped_end(*record);
    release_record(record);
  }
}

void CUDA_CB run_end_marker(void* opaque) {
  auto* record = static_cast<WrappedHostFunction*>(opaque);
  record->handler->wrapped_end(*record);
  release_record(record);
}

}  // namespace gilsan::checkers::inject

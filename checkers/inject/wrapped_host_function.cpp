#include "checkers/inject/wrapped_host_function.h"

#include "checkers/inject/inject_handler.h"

namespace gilsan::checkers::inject {

void release_record(WrappedHostFunction* record) {
  if (record->one_shot && record->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete record;
}

void CUDA_CB run_wrapped_host_function(void* opaque) {
  auto* record = static_cast<WrappedHostFunction*>(opaque);
  record->handler->wrapped_begin(*record);
  record->user_function(record->user_data);
  record->handler->wrapped_end(*record);
  release_record(record);
}

void CUDA_CB run_begin_marker(void* opaque) {
  auto* record = static_cast<WrappedHostFunction*>(opaque);
  record->handler->wrapped_begin(*record);
}

void CUDA_CB run_end_marker(void* opaque) {
  auto* record = static_cast<WrappedHostFunction*>(opaque);
  record->handler->wrapped_end(*record);
  release_record(record);
}

}  // namespace gilsan::checkers::inject

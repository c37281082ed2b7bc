// The record behind every host function the injection library wraps, and the functions the driver
// runs in place of the user's: the wrapper (rewrite mode) reports begin, runs the user's function,
// reports end; the markers (marker mode) are enqueued right before and after the user's function on
// the same stream and report begin and end around it.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "checkers/core/handles.h"
#include "checkers/sources/code_address.h"

namespace gilsan::checkers::inject {

class InjectHandler;

// What the handler learned once about the code at a host function's address: shared by every
// record of that function, so that a launch copies no strings.
// Who a wrapped host function is (code_address.h): named once per code address.
using HostFunctionCode = HostFunctionIdentity;

// In marker mode a one-shot record runs between a begin marker, queued by the launch's entry callback,
// and an end marker, queued by its exit callback. When the end marker cannot be queued, the begin
// marker is queued all the same and will run: `markers` settles which of the two finishes the record.
// A captured launch's markers become graph nodes that run at every launch of the graph; its state is
// set once, by the launch's exit callback during the capture, before a launch of the graph can run
// them. (A stream taken for capturing only because its capture status could not be read is live: a
// begin marker that ran there before a refused end marker was seen leaves its run open, as a one-shot
// record's does in kBeginRan.)
enum MarkerState : std::uint8_t {
  kNoMarkers = 0,    // run by the wrapper (rewrite mode)
  kBeginQueued = 1,  // the begin marker is queued and has not run
  kBeginRan = 2,     // the begin marker has run: the end marker finishes (if its launch fails, nothing does)
  kEndLost = 3,      // the end marker's launch failed before the begin marker ran: the begin marker ends and finishes
  kLasting = 4,      // between markers in a graph (captured): run at every launch, nothing to settle
  kLastingEndLost = 5,  // captured, and the end marker's launch failed: the begin marker ends each run itself
};

// One cache line, aligned: pooled records sit side by side (record_pool.h), and the callback thread
// finishing one must not disturb the line of the next, which the launching thread is filling in.
struct alignas(64) WrappedHostFunction {
  InjectHandler* handler = nullptr;
  CUhostFn user_function = nullptr;
  void* user_data = nullptr;
  const HostFunctionCode* code = nullptr;  // owned by the handler, lives as long as it
  Handle context = 0;
  std::optional<Handle> stream;  // nullopt: a graph node's, runs on whatever stream the graph does
  // A one-shot record is held by the function the driver runs and, when that callback still needs
  // it after a successful launch (markers, host_function_enqueued), by the launch's API-exit
  // callback, which may come after the run on a busy machine; the last of them finishes it.
  std::atomic<int> references{2};
  // Runs once. False for graph host nodes and for launches into a capturing stream: a graph runs
  // them once per launch, so their records live as long as the handler.
  bool one_shot = true;
  bool pooled = false;  // a slot of a RecordPool block, taken again once finished; else on the heap
  bool self_test = false;  // the start-up self-test's probe: reported to nobody
  std::atomic<std::uint8_t> markers{kNoMarkers};  // MarkerState: not kNoMarkers when run between markers
};
static_assert(sizeof(WrappedHostFunction) == 64, "a record is one cache line");

// Drops one reference to a one-shot record (see `references`): the last one deletes a heap record
// and leaves a pooled one free to be taken again. Lasting records are left alone.
void release_record(WrappedHostFunction* record);
// Finishes a one-shot record that nothing else holds (its launch was not made), whatever its count.
void discard_record(WrappedHostFunction* record);

void CUDA_CB run_wrapped_host_function(void* record);
void CUDA_CB run_begin_marker(void* record);
void CUDA_CB run_end_marker(void* record);

}  // namespace gilsan::checkers::inject

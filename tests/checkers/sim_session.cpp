#include "tests/checkers/sim_session.h"

#include <stdexcept>

#include "harness/driver/driver_selection.h"

namespace gilsan::checkers::testing {

SimSession& SimSession::get() {
  static SimSession* session = new SimSession();  // the sim lives until the process ends
  return *session;
}

SimSession::SimSession() : table_(DriverTable::load(simulated_driver_path())) {
  if (!table_->is_simulated()) throw std::runtime_error(table_->library_path() + " is not the simulated driver");
  if (table_->cuInit(0) != CUDA_SUCCESS || table_->cuDeviceGet(&device_, 0) != CUDA_SUCCESS ||
      table_->cuDevicePrimaryCtxRetain(&context_, device_) != CUDA_SUCCESS) {
    throw std::runtime_error("the simulated driver did not initialize");
  }
  make_current();
}

void SimSession::make_current() const {
  if (table_->cuCtxSetCurrent(context_) != CUDA_SUCCESS) throw std::runtime_error("cuCtxSetCurrent failed");
}

SimStream::SimStream() {
  const SimSession& session = SimSession::get();
  session.make_current();
  if (session.driver().cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    throw std::runtime_error("cuStreamCreate failed");
  }
}

SimStream::~SimStream() { SimSession::get().driver().cuStreamDestroy(stream_); }

}  // namespace gilsan::checkers::testing

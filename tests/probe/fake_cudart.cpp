// A stand-in for libcudart, for testing the probe's runtime-vs-driver comparison without a GPU: the
// few runtime entry points the probe calls, each forwarded to the simulated driver through a driver
// table. Results map one to one (cudaErrorNotPermitted is 800 like CUDA_ERROR_NOT_PERMITTED), so on
// the simulated driver the two columns agree; what the test checks is the probe's plumbing.
#include <cuda.h>

#include <memory>

#include "harness/driver/driver_selection.h"
#include "harness/driver/driver_table.h"

namespace {

const gilsan::DriverTable& driver() {
  static std::unique_ptr<gilsan::DriverTable> table = gilsan::DriverTable::load(gilsan::simulated_driver_path());
  return *table;
}

int to_runtime_error(CUresult result) {
  switch (result) {
    case CUDA_SUCCESS: return 0;
    case CUDA_ERROR_NOT_READY: return 600;
    case CUDA_ERROR_NOT_PERMITTED: return 800;
    default: return 999;
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) const char* cudaGetErrorName(int error) {
  switch (error) {
    case 0: return "cudaSuccess";
    case 600: return "cudaErrorNotReady";
    case 800: return "cudaErrorNotPermitted";
    default: return "cudaErrorUnknown";
  }
}

__attribute__((visibility("default"))) int cudaSetDevice(int device) {
  CUdevice handle = 0;
  CUcontext context = nullptr;
  if (CUresult rc = driver().cuInit(0); rc != CUDA_SUCCESS) return to_runtime_error(rc);
  if (CUresult rc = driver().cuDeviceGet(&handle, device); rc != CUDA_SUCCESS) return to_runtime_error(rc);
  if (CUresult rc = driver().cuDevicePrimaryCtxRetain(&context, handle); rc != CUDA_SUCCESS) return to_runtime_error(rc);
  return to_runtime_error(driver().cuCtxSetCurrent(context));
}

__attribute__((visibility("default"))) int cudaStreamCreateWithFlags(CUstream* stream, unsigned flags) {
  return to_runtime_error(driver().cuStreamCreate(stream, flags));
}

__attribute__((visibility("default"))) int cudaLaunchHostFunc(CUstream stream, void (*fn)(void*), void* data) {
  return to_runtime_error(driver().cuLaunchHostFunc(stream, fn, data));
}

__attribute__((visibility("default"))) int cudaStreamSynchronize(CUstream stream) {
  return to_runtime_error(driver().cuStreamSynchronize(stream));
}

__attribute__((visibility("default"))) int cudaStreamQuery(CUstream stream) {
  return to_runtime_error(driver().cuStreamQuery(stream));
}

__attribute__((visibility("default"))) int cudaMalloc(void** pointer, std::size_t bytes) {
  CUdeviceptr device_pointer = 0;
  int error = to_runtime_error(driver().cuMemAlloc(&device_pointer, bytes));
  *pointer = reinterpret_cast<void*>(device_pointer);
  return error;
}

}  // extern "C"

// A native program whose host function makes two driver API calls, for the injected sanitizer's GPU
// check (run_gpu_checks.sh): cuStreamQuery of another stream, which driver 580.159.04 allows there
// (CUDA_SUCCESS), then cuMemAlloc, which it refuses (CUDA_ERROR_NOT_PERMITTED). Both are
// cuda-call-in-host-function findings; the check prints which ones CUPTI let the plugin see.
// Prints what each call returned inside the host function; exit status 0 unless set-up failed (the
// sanitizer turns a report into its own exit status).
#include <cuda.h>

#include <cstdio>

namespace {

struct Inside {
  CUstream other_stream = nullptr;
  CUresult query = CUDA_ERROR_UNKNOWN;
  CUresult allocate = CUDA_ERROR_UNKNOWN;
};

void CUDA_CB call_the_driver_inside(void* data) {
  auto* inside = static_cast<Inside*>(data);
  inside->query = cuStreamQuery(inside->other_stream);
  CUdeviceptr pointer = 0;
  inside->allocate = cuMemAlloc(&pointer, 1 << 20);
  if (inside->allocate == CUDA_SUCCESS) cuMemFree(pointer);
}

const char* name_of(CUresult result) {
  const char* name = nullptr;
  return cuGetErrorName(result, &name) == CUDA_SUCCESS && name != nullptr ? name : "?";
}

bool ok(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return true;
  std::fprintf(stderr, "host_function_calls_driver: %s returned %d\n", what, static_cast<int>(result));
  return false;
}

}  // namespace

int main() {
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  Inside inside;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !ok(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !ok(cuStreamCreate(&inside.other_stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !ok(cuLaunchHostFunc(stream, call_the_driver_inside, &inside), "cuLaunchHostFunc") ||
      !ok(cuStreamSynchronize(stream), "cuStreamSynchronize")) {
    return 1;
  }
  std::printf("inside a host function: cuStreamQuery(another stream) returned %s, cuMemAlloc returned %s\n",
              name_of(inside.query), name_of(inside.allocate));
  cuStreamDestroy(inside.other_stream);
  cuStreamDestroy(stream);
  cuDevicePrimaryCtxRelease(device);
  return 0;
}

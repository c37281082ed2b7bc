// A native program whose host function calls cudaMalloc through the CUDA runtime (linked
// dynamically), for the injected sanitizer's GPU check (run_gpu_checks.sh): cuda-call-in-host-function
// must name cudaMalloc, which the runtime may refuse before making any driver call.
// Prints what cudaMalloc returned inside the host function; exit status 0 unless set-up failed.
#include <cuda_runtime.h>

#include <cstdio>

namespace {

void CUDART_CB allocate_inside(void* result) {
  void* pointer = nullptr;
  *static_cast<cudaError_t*>(result) = cudaMalloc(&pointer, 1 << 20);
  if (*static_cast<cudaError_t*>(result) == cudaSuccess) cudaFree(pointer);
}

bool ok(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return true;
  std::fprintf(stderr, "host_function_calls_runtime: %s returned %s\n", what, cudaGetErrorName(result));
  return false;
}

}  // namespace

int main() {
  cudaStream_t stream = nullptr;
  cudaError_t inside = cudaErrorUnknown;
  if (!ok(cudaSetDevice(0), "cudaSetDevice") ||
      !ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags") ||
      !ok(cudaLaunchHostFunc(stream, allocate_inside, &inside), "cudaLaunchHostFunc") ||
      !ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) {
    return 1;
  }
  std::printf("cudaMalloc inside a host function returned %s (%d)\n", cudaGetErrorName(inside),
              static_cast<int>(inside));
  cudaStreamDestroy(stream);
  return 0;
}

// A stand-in driver library for the driver table's tests: it resolves only cuInit and
// cuDriverGetVersion, so every other entry point of the table must come back as a counted stub.
#include <cuda.h>

#include <cstring>

extern "C" {

CUresult CUDAAPI partial_cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult CUDAAPI partial_cuDriverGetVersion(int* version) {
  *version = 4242;
  return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int,
                                                                             cuuint64_t,
                                                                             CUdriverProcAddressQueryResult* status) {
  *pfn = nullptr;
  if (std::strcmp(symbol, "cuInit") == 0) *pfn = reinterpret_cast<void*>(&partial_cuInit);
  if (std::strcmp(symbol, "cuDriverGetVersion") == 0) *pfn = reinterpret_cast<void*>(&partial_cuDriverGetVersion);
  if (status != nullptr) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
}

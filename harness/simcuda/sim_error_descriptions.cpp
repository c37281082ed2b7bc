// Descriptions for cuGetErrorString, in the sim's own words, for the results the sim itself returns;
// any other defined value is described by its name.
#include "harness/simcuda/sim_errors.h"

namespace gilsan::sim {

const char* error_description(CUresult result) {
  switch (result) {
    case CUDA_SUCCESS: return "no error";
    case CUDA_ERROR_INVALID_VALUE: return "an argument is out of range or null where it may not be";
    case CUDA_ERROR_OUT_OF_MEMORY: return "out of memory";
    case CUDA_ERROR_NOT_INITIALIZED: return "cuInit has not been called, or it failed";
    case CUDA_ERROR_INVALID_DEVICE: return "no device has this ordinal";
    case CUDA_ERROR_INVALID_IMAGE: return "the module image is neither PTX, a cubin nor a fatbin";
    case CUDA_ERROR_INVALID_CONTEXT: return "no valid current context, or the context handle is not a live context";
    case CUDA_ERROR_INVALID_HANDLE: return "the handle is not a live object of its kind";
    case CUDA_ERROR_NOT_FOUND: return "no such named symbol or kernel";
    case CUDA_ERROR_NOT_READY: return "the work is not complete yet";
    case CUDA_ERROR_ILLEGAL_ADDRESS: return "device work touched memory outside any allocation; the context is unusable";
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return "the host range overlaps memory already page-locked";
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return "the host pointer was not registered";
    case CUDA_ERROR_NOT_PERMITTED: return "this call is not permitted from inside a host function";
    case CUDA_ERROR_NOT_SUPPORTED: return "not modelled by the simulated driver";
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return "the operation is not allowed while the stream is capturing";
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return "the capture was invalidated by an earlier error";
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: return "the capture was begun on another thread";
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: return "the legacy stream was used while a blocking stream captures";
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION: return "a capture would depend on work outside it";
    case CUDA_ERROR_ILLEGAL_STATE: return "the object is not in a state that allows this call";
    case CUDA_ERROR_OPERATING_SYSTEM: return "the simulated driver could not start a thread";
    default: return error_name(result);
  }
}

}  // namespace gilsan::sim

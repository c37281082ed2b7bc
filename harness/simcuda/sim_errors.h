// Names and descriptions of CUresult values for cuGetErrorName / cuGetErrorString.
#pragma once

#include <cuda.h>

namespace gilsan::sim {

// "CUDA_ERROR_NOT_PERMITTED" etc., or null for a value cuda.h does not define.
// Generated at build time from cuda.h's CUresult enum (sim_error_names.cpp).
const char* error_name(CUresult result);
// A one-line description, or null for a value cuda.h does not define.
const char* error_description(CUresult result);

}  // namespace gilsan::sim

// Modules, libraries, kernels and kernel launches.
#include <algorithm>

#include "harness/simcuda/sim_api_scope.h"
#include "harness/simcuda/sim_context.h"
#include "harness/simcuda/sim_module.h"
#include "harness/simcuda/sim_stream_entry_points.h"

namespace gilsan::sim {
namespace {

// A kernel named in the image that the sim can also run, or why not.
CUresult runnable_kernel(const std::vector<std::string>& names_in_image, const char* name,
                         const BuiltinKernel*& out) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (std::find(names_in_image.begin(), names_in_image.end(), name) == names_in_image.end())
    return CUDA_ERROR_NOT_FOUND;
  out = find_builtin_kernel(name);
  if (out == nullptr && SimDriver::instance().runs_unknown_kernels_as_empty()) out = &empty_kernel();
  return out == nullptr ? CUDA_ERROR_NOT_FOUND : CUDA_SUCCESS;
}

}  // namespace

namespace api {

namespace {

// cuLaunchKernel and cuLaunchKernelEx, once the caller's ApiScope has let the call through.
CUresult launch(ApiScope& api, CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ, CUstream hStream, void** kernelParams,
                void** extra, DefaultStream null_stream) {
  if (gridDimX == 0 || gridDimY == 0 || gridDimZ == 0 || blockDimX == 0 || blockDimY == 0 || blockDimZ == 0)
    return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    Lock lock(SimDriver::instance().mutex);
    std::shared_ptr<SimStream> stream;
    if (CUresult rc = resolve_stream(hStream, null_stream, stream); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<SimFunction> function = resolve_function(f, *stream->context);
    if (!function || function->context != stream->context.get()) return CUDA_ERROR_INVALID_HANDLE;
    api.decide_first_use(lock, first_use_by_launch(f, *function));
    KernelRun run;
    if (CUresult rc = pack_kernel_arguments(*function->kernel, kernelParams, extra, run); rc != CUDA_SUCCESS)
      return rc;
    return submit(lock, *stream, run);
  }));
}

}  // namespace

CUresult launch_kernel(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ, unsigned blockDimX,
                       unsigned blockDimY, unsigned blockDimZ, unsigned, CUstream hStream, void** kernelParams,
                       void** extra, DefaultStream null_stream) {
  ApiScope api(entry("cuLaunchKernel"), on_stream(hStream));
  if (api.refused()) return api.result();
  return launch(api, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, hStream, kernelParams, extra,
                null_stream);
}

CUresult launch_kernel_ex(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra,
                          DefaultStream null_stream) {
  ApiScope api(entry("cuLaunchKernelEx"), on_stream(config == nullptr ? nullptr : config->hStream));
  if (api.refused()) return api.result();
  if (config == nullptr || (config->numAttrs > 0 && config->attrs == nullptr)) return api.finish(CUDA_ERROR_INVALID_VALUE);
  // Launch attributes (cluster shape, cooperative launch, priority, programmatic serialization, ...) are
  // accepted and have no effect: device code is not executed, and the launch is ordered as a plain one.
  return launch(api, f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX, config->blockDimY,
                config->blockDimZ, config->hStream, kernelParams, extra, null_stream);
}

}  // namespace api
}  // namespace gilsan::sim

using namespace gilsan::sim;

extern "C" {

CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
  ApiScope api(entry("cuModuleLoadData"), on_current_context());
  if (api.refused()) return api.result();
  if (module == nullptr || image == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimContext> context = current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    auto loaded = std::make_shared<SimModule>();
    if (!kernel_names_in_image(image, loaded->kernel_names)) return CUDA_ERROR_INVALID_IMAGE;
    loaded->context = context.get();
    driver.modules.add(loaded);
    *module = loaded->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  ApiScope api(entry("cuModuleUnload"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimModule> module = driver.modules.remove(hmod);
    if (!module) return CUDA_ERROR_INVALID_HANDLE;
    for (const auto& [name, function] : module->functions) driver.functions.remove(function.get());
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  ApiScope api(entry("cuModuleGetFunction"), on_current_context());
  if (api.refused()) return api.result();
  if (hfunc == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimModule> module = driver.modules.find(hmod);
    if (!module) return CUDA_ERROR_INVALID_HANDLE;
    const BuiltinKernel* kernel = nullptr;
    if (CUresult rc = runnable_kernel(module->kernel_names, name, kernel); rc != CUDA_SUCCESS) return rc;
    auto& function = module->functions[name];
    if (!function) {
      function = std::make_shared<SimFunction>();
      function->context = module->context;
      function->kernel = kernel;
      driver.functions.add(function);
    }
    *hfunc = function->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**, unsigned int,
                                   CUlibraryOption*, void**, unsigned int) {
  // JIT and library options tune compilation and loading; the sim compiles nothing, so they change nothing.
  ApiScope api(entry("cuLibraryLoadData"), on_current_context());
  if (api.refused()) return api.result();
  if (library == nullptr || code == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    auto loaded = std::make_shared<SimLibrary>();
    if (!kernel_names_in_image(code, loaded->kernel_names)) return CUDA_ERROR_INVALID_IMAGE;
    driver.libraries.add(loaded);
    *library = loaded->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library) {
  ApiScope api(entry("cuLibraryUnload"), on_current_context());
  if (api.refused()) return api.result();
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimLibrary> loaded = driver.libraries.remove(library);
    if (!loaded) return CUDA_ERROR_INVALID_HANDLE;
    for (const auto& [name, kernel] : loaded->kernels) {
      for (const auto& [context, function] : kernel->per_context) driver.functions.remove(function.get());
      driver.kernels.remove(kernel.get());
    }
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
  ApiScope api(entry("cuLibraryGetKernel"), on_current_context());
  if (api.refused()) return api.result();
  if (pKernel == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimLibrary> loaded = driver.libraries.find(library);
    if (!loaded) return CUDA_ERROR_INVALID_HANDLE;
    const BuiltinKernel* builtin = nullptr;
    if (CUresult rc = runnable_kernel(loaded->kernel_names, name, builtin); rc != CUDA_SUCCESS) return rc;
    auto& kernel = loaded->kernels[name];
    if (!kernel) {
      kernel = std::make_shared<SimKernel>();
      kernel->kernel = builtin;
      driver.kernels.add(kernel);
    }
    *pKernel = kernel->handle();
    return CUDA_SUCCESS;
  }));
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
  ApiScope api(entry("cuKernelGetFunction"), on_current_context());
  if (api.refused()) return api.result();
  if (pFunc == nullptr) return api.finish(CUDA_ERROR_INVALID_VALUE);
  return api.finish(guarded([&] {
    auto& driver = SimDriver::instance();
    Lock lock(driver.mutex);
    std::shared_ptr<SimKernel> found = driver.kernels.find(kernel);
    if (!found) return CUDA_ERROR_INVALID_HANDLE;
    std::shared_ptr<SimContext> context = current_context();
    if (!context) return CUDA_ERROR_INVALID_CONTEXT;
    std::shared_ptr<SimFunction> function = function_of(*found, *context);
    api.decide_first_use(lock, first_use_by_get_function(*function));
    *pFunc = function->handle();
    return CUDA_SUCCESS;
  }));
}

}  // extern "C"

#include "harness/cudashim/real_driver.h"

#include <cuda.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string_view>
#include <vector>

namespace gilsan::cudashim {
namespace {

// Where distributions and the NVIDIA installers put libcuda.so.1 (the loader's cache is not ours to
// read, and asking it for "libcuda.so.1" would answer with this library).
constexpr const char* kSystemFolders[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu", "/lib64",
    "/usr/local/cuda/compat",    "/usr/lib/wsl/lib",
};

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// This library's own file: a candidate that is this file (through a symlink too) is not the real driver.
bool own_file(struct stat& out) {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&own_file), &info) == 0 || info.dli_fname == nullptr) return false;
  return ::stat(info.dli_fname, &out) == 0;
}

std::vector<std::string> candidates() {
  std::vector<std::string> folders;
  if (const char* path = std::getenv("LD_LIBRARY_PATH"); path != nullptr) {
    std::string_view rest = path;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      if (colon != 0) folders.emplace_back(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  for (const char* folder : kSystemFolders) folders.emplace_back(folder);
  std::vector<std::string> files;
  for (const std::string& folder : folders) files.push_back(folder + "/libcuda.so.1");
  return files;
}

RealDriver load() {
  RealDriver driver;
  struct stat own {};
  const bool know_own = own_file(own);
  std::vector<std::string> tried;
  if (const char* chosen = std::getenv("GILSAN_REAL_LIBCUDA"); chosen != nullptr && *chosen != '\0') {
    tried.emplace_back(chosen);
  } else {
    tried = candidates();
  }
  for (const std::string& path : tried) {
    struct stat file {};
    if (::stat(path.c_str(), &file) != 0) continue;
    if (know_own && same_file(file, own)) continue;
    driver.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (driver.handle != nullptr) {
      driver.path = path;
      return driver;
    }
    const char* why = ::dlerror();
    driver.error = path + ": " + (why != nullptr ? why : "dlopen failed");
  }
  if (driver.error.empty())
    driver.error = std::getenv("GILSAN_REAL_LIBCUDA") != nullptr && *std::getenv("GILSAN_REAL_LIBCUDA") != '\0'
                       ? std::string("GILSAN_REAL_LIBCUDA=") + std::getenv("GILSAN_REAL_LIBCUDA") + ": no such file"
                       : "no libcuda.so.1 other than this one in LD_LIBRARY_PATH or the system's library folders";
  return driver;
}

}  // namespace

const RealDriver& real_driver() {
  static const RealDriver* const driver = new RealDriver(load());  // never freed: the driver stays loaded
  return *driver;
}

namespace {

CUresult unavailable() { return CUDA_ERROR_NOT_FOUND; }

}  // namespace

void* unavailable_function() { return reinterpret_cast<void*>(&unavailable); }

void* real_function(const char* name) {
  const RealDriver& driver = real_driver();
  return driver.handle != nullptr ? ::dlsym(driver.handle, name) : nullptr;
}

}  // namespace gilsan::cudashim

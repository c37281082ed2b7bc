/* Loads libcuda.so.1 by name, as CUDA's runtime does, so LD_LIBRARY_PATH decides which driver it gets. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned int);
typedef int (*count_fn)(int*);

int main(void) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW);
  if (driver == NULL) {
    fprintf(stderr, "count_devices: %s\n", dlerror());
    return 1;
  }
  init_fn init = (init_fn)dlsym(driver, "cuInit");
  count_fn count = (count_fn)dlsym(driver, "cuDeviceGetCount");
  int devices = 0;
  if (init == NULL || count == NULL || init(0) != 0 || count(&devices) != 0) {
    fprintf(stderr, "count_devices: the driver did not initialize\n");
    return 1;
  }
  printf("devices: %d\n", devices);
  return 0;
}

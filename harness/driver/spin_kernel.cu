// gilsan's test kernels. Compiled to PTX at build time (nvcc -ptx) and embedded in gilsan, which loads
// them with cuModuleLoadData on whichever driver it talks to. The simulated driver recognises the
// same entry names and does the same work without running device code.
//
// extern "C" keeps the PTX entry names unmangled: the names are the interface.

// Keeps one thread busy until `nanoseconds` of the GPU's global timer have passed: device work of a
// known duration, whatever the clock rate.
extern "C" __global__ void gilsan_spin_ns(unsigned long long nanoseconds) {
  unsigned long long start;
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

// Writes `value` to `count` consecutive 32-bit words at `destination` (a grid-stride loop).
extern "C" __global__ void gilsan_fill_u32(unsigned int* destination, unsigned int value, unsigned long long count) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    destination[i] = value;
  }
}

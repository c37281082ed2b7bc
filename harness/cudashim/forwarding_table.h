// The forwarding driver's exported entry points: one slot per function the toolkit's stubs/libcuda.so
// exports (generated: forwarded_names.inc, forwarders.S), filled when the library loads with the real
// driver's function or, for a watched entry point, our wrapper.
#pragma once

namespace gilsan::cudashim {

// The wrapper cuGetProcAddress should hand out in place of the real driver's `function`, or
// `function` itself when it is not one we watch.
void* wrapper_for_real_function(void* function);

}  // namespace gilsan::cudashim

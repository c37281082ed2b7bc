// libgilsan_board_test_hooks.so: a shared object with its own static copy of the board writer, for
// tests that need a second copy in one process (the board tests) or a board in a plain Python
// process loaded through ctypes (the Python-stack integration test).
#include <unistd.h>

#include "harness/board/board_writer.h"

#define GILSAN_TEST_EXPORT extern "C" __attribute__((visibility("default")))

// Installs the stack sampler and announces the faulthandler signal; returns the sampler's signal.
GILSAN_TEST_EXPORT int gilsan_test_install(int python_stack_signal) {
  int sampler = gilsan::board::install_stack_sampler();
  if (python_stack_signal > 0) gilsan::board::announce_python_stack_signal(python_stack_signal);
  return sampler;
}

GILSAN_TEST_EXPORT void gilsan_test_enter_call(const char* entry_point, unsigned long long stream) {
  gilsan::board::enter_call(entry_point, 0, stream, 0);
}

GILSAN_TEST_EXPORT void gilsan_test_exit_call() { gilsan::board::exit_call(); }

GILSAN_TEST_EXPORT void gilsan_test_set_role_python() { gilsan::board::set_role(gilsan::board::Role::Python); }

// Blocks the calling thread forever in read() on a pipe nobody writes. Called through ctypes.PyDLL,
// it keeps the GIL while it blocks: the other Python threads then wait for the GIL in take_gil.
GILSAN_TEST_EXPORT void gilsan_test_block_forever() {
  int fds[2];
  if (::pipe(fds) != 0) return;
  char byte;
  while (true) {
    if (::read(fds[0], &byte, 1) < 0) continue;
  }
}

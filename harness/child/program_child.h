// The program child: what `gilsan run -- COMMAND [ARGS...]` re-executes itself as
// (`gilsan __program-child -- COMMAND ...`) to turn into the user's program, unmodified. It does what a
// scenario child does before it has Python -- no core files, a report record saying what it runs --
// then execs COMMAND (searched on PATH) in the same process, so that the watchdog, the board and the
// driver folder the runner prepared apply to the program itself.
#pragma once

#include "harness/scenario/child_protocol.h"

namespace gilsan {

// Never returns: the program replaces this process, or the child reports why it could not start and
// exits with 127 (as a shell does for a command it cannot run).
[[noreturn]] void run_program_child(const ProgramArguments& arguments);

}  // namespace gilsan

// The calling thread's Python stack as text, for a sanitizer's reports (checkers/sources/
// sanitizer_hooks.h, GilsanPythonStackFunction): the module owns the interpreter's API, so it writes
// the frames and the front end, which links nothing of Python, only asks for them.
#pragma once

namespace gilsan::pymodule {

// GIL held. At most `max_frames` frames, innermost first, each "file.py:LINE function\n", into
// `buffer` (NUL-terminated, cut at `size`); returns how many it wrote. Never raises, and leaves an
// exception that is already set as it is.
// The text is kept per call site (the frames' code objects and offsets), so a loop's launches write it once.
int write_python_stack(char* buffer, unsigned long size, int max_frames);

// GIL held, at interpreter exit: drops the kept texts and the code objects they hold.
void forget_python_stacks();

}  // namespace gilsan::pymodule

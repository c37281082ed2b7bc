// The calling thread's Python stack, read the way faulthandler reads it: without the GIL. A source
// may need the stack of a thread that is inside a call that released the GIL (ctypes.CDLL, CuPy,
// cuda.bindings), where taking the GIL back could deadlock; the thread's own frames cannot change
// while it runs our code, so reading them is safe.
//
// Uses CPython's _Py_DumpTraceback (exported by every libpython since 3.x, what faulthandler calls) into
// a per-thread memory file, and PyGILState_GetThisThreadState, both found with dlsym: links nothing of
// Python. A few microseconds (two system calls); for stacks that are kept, not for every event.
#pragma once

#include <string>
#include <string_view>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

// Frames innermost first, each "file.py:LINE function" (the file's base name); empty when the thread
// has no Python thread state, no interpreter runs, or CPython lacks the functions.
Stack read_python_stack_without_gil(int max_frames);

// One line of _Py_DumpTraceback ("  File \"/a/b.py\", line 12 in main") as a frame ("b.py:12 main"),
// or "" for any other line. For tests.
std::string python_frame_of_dump_line(std::string_view line);

}  // namespace gilsan::checkers

#include "harness/pymodule/python_stack.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>  // f_lasti, before PyFrame_GetLasti (3.11)
#endif

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace gilsan::pymodule {
namespace {

// The UTF-8 text of `text`, or "?" (a str with lone surrogates: its error is cleared).
const char* utf8_or_unknown(PyObject* text) {
  const char* utf8 = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
  if (utf8 == nullptr) PyErr_Clear();
  return utf8 != nullptr ? utf8 : "?";
}

// One frame: its code object (a strong reference while in a CallSite) and where it is in it.
struct FrameAt {
  PyCodeObject* code = nullptr;
  int offset = -1;  // PyFrame_GetLasti: the instruction's byte offset, -1 before the first one
  bool operator==(const FrameAt&) const = default;
};

// The frames, innermost first, and how many frames and bytes the caller asked for.
struct CallSite {
  std::vector<FrameAt> frames;
  int max_frames = 0;
  unsigned long size = 0;
  bool operator==(const CallSite&) const = default;
};

void release(CallSite& site) {
  for (const FrameAt& frame : site.frames) Py_DECREF(frame.code);
  site.frames.clear();
}

// The calling thread's frames (GIL held) into `site`, each code object held. `site` is the caller's
// scratch, its buffer reused: a launch loop asks thousands of times and would otherwise allocate (and
// grow) a vector per launch only to find its site kept already.
void read_call_site(CallSite& site, int max_frames, unsigned long size) {
  release(site);  // empty after every call, unless a copy of the last one threw
  site.max_frames = max_frames;
  site.size = size;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr && static_cast<int>(site.frames.size()) < max_frames) {
#if PY_VERSION_HEX >= 0x030B0000
    const int offset = PyFrame_GetLasti(frame);
#else
    const int offset = frame->f_lasti * static_cast<int>(sizeof(_Py_CODEUNIT));
#endif
    site.frames.push_back(FrameAt{PyFrame_GetCode(frame), offset});
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
}

// "file.py:LINE function\n" per frame, cut at site.size - 1 bytes; `written` gets the frame count.
std::string format(const CallSite& site, int& written) {
  std::string text;
  written = 0;
  char line[1024];
  for (const FrameAt& frame : site.frames) {
    const char* file = utf8_or_unknown(frame.code->co_filename);
    const char* base = std::strrchr(file, '/');
#if PY_VERSION_HEX >= 0x030B0000
    PyObject* name = frame.code->co_qualname;
#else
    PyObject* name = frame.code->co_name;
#endif
    const int length = std::snprintf(line, sizeof line, "%s:%d %s\n", base != nullptr ? base + 1 : file,
                                     PyCode_Addr2Line(frame.code, frame.offset), utf8_or_unknown(name));
    if (length < 0 || text.size() + 1 >= site.size) break;
    text.append(line, std::min<std::size_t>(static_cast<std::size_t>(length), sizeof line - 1));
    ++written;
  }
  if (text.size() + 1 > site.size) text.resize(site.size - 1);
  return text;
}

// host_launch in a loop asks for the same stack thousands of times, and writing it (a line-table
// decode and a formatted line per frame) cost more than the launch: the text is kept per call site.
// A site holds its code objects, so that a freed code object's address cannot come back as another
// one's and match. A few sites are kept, the oldest dropped first; all go at interpreter exit.
struct WrittenStack {
  CallSite site;
  std::string text;
  int frames = 0;
};
constexpr std::size_t kKeptSites = 64;
std::deque<WrittenStack>& written_stacks() {
  static std::deque<WrittenStack> stacks;  // GIL held whenever used
  return stacks;
}

}  // namespace

int write_python_stack(char* buffer, unsigned long size, int max_frames) {
  if (size == 0) return 0;
  buffer[0] = '\0';
  // Clearing an error of our own must not clear the caller's: with one set, write nothing.
  if (PyErr_Occurred() != nullptr) return 0;
  static CallSite site;  // the scratch read_call_site fills: the GIL is held whenever it is used
  read_call_site(site, max_frames, size);
  std::deque<WrittenStack>& stacks = written_stacks();
  auto kept = std::find_if(stacks.rbegin(), stacks.rend(), [&](const WrittenStack& stack) { return stack.site == site; });
  if (kept != stacks.rend()) {
    release(site);
  } else {
    WrittenStack stack;
    stack.text = format(site, stack.frames);
    stack.site = site;  // a copy: the scratch keeps its buffer, the kept site owns its references
    site.frames.clear();
    if (stacks.size() == kKeptSites) {
      release(stacks.front().site);
      stacks.pop_front();
    }
    stacks.push_back(std::move(stack));
    kept = stacks.rbegin();
  }
  std::memcpy(buffer, kept->text.c_str(), kept->text.size() + 1);
  return kept->frames;
}

void forget_python_stacks() {
  std::deque<WrittenStack>& stacks = written_stacks();
  for (WrittenStack& stack : stacks) release(stack.site);
  stacks.clear();
}

}  // namespace gilsan::pymodule

// write_python_stack keeps the text it wrote per call site (the frames' code objects and offsets): a
// loop's host_launch calls write it once. These check that what it keeps is never another site's text.
#include <string>

#include "harness/pymodule/python_stack.h"
#include "tests/pymodule/embedded_interpreter.h"

namespace {

using gilsan::test::run;
using gilsan::test::start_interpreter;

int g_max_frames = 16;
unsigned long g_buffer_size = 4096;

// stack(): the caller's Python stack as write_python_stack writes it, with the test's limits.
PyObject* stack(PyObject*, PyObject*) {
  std::string buffer(g_buffer_size, '\xff');
  const int frames = gilsan::pymodule::write_python_stack(buffer.data(), g_buffer_size, g_max_frames);
  return Py_BuildValue("(is)", frames, buffer.c_str());
}

PyObject* set_limits(PyObject*, PyObject* args) {
  if (!PyArg_ParseTuple(args, "ik", &g_max_frames, &g_buffer_size)) return nullptr;
  Py_RETURN_NONE;
}

PyObject* forget(PyObject*, PyObject*) {
  gilsan::pymodule::forget_python_stacks();
  Py_RETURN_NONE;
}

PyMethodDef kMethods[] = {{"stack", stack, METH_NOARGS, nullptr},
                          {"set_limits", set_limits, METH_VARARGS, nullptr},
                          {"forget", forget, METH_NOARGS, nullptr},
                          {nullptr, nullptr, 0, nullptr}};
PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "stacks", nullptr, -1, kMethods, nullptr, nullptr, nullptr, nullptr};
PyObject* init_stacks() { return PyModule_Create(&kModule); }

void start() {
  ASSERT_EQ(PyImport_AppendInittab("stacks", &init_stacks), 0);
  start_interpreter();
}

TEST(PythonStack, EachCallSiteGetsItsOwnFramesAndLines) {
  start();
  run("import stacks\n"
      "def inner():\n"
      "    return stacks.stack()\n"                                  // line 3
      "def outer():\n"
      "    return inner()\n"                                         // line 5
      "looped = [outer() for _ in range(3)]\n"                       // line 6
      "assert looped[0] == looped[1] == looped[2], looped\n"
      "frames, text = looped[0]\n"
      "lines = text.splitlines()\n"
      "assert lines[:3] == ['<string>:3 inner', '<string>:5 outer', '<string>:6 <listcomp>'] or \\\n"
      "       lines[:3] == ['<string>:3 inner', '<string>:5 outer', '<string>:6 <module>'], lines\n"
      "assert frames == len(lines), (frames, lines)\n"
      "direct = inner()\n"                                           // line 13
      "assert direct[1].splitlines() == ['<string>:3 inner', '<string>:13 <module>'], direct\n"
      "again = outer()\n"                                            // line 15
      "assert again[1].splitlines()[2] == '<string>:15 <module>', again\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
}

TEST(PythonStack, TheLimitsOfOneCallAreNotAnothersAtTheSameSite) {
  start();
  run("import stacks\n"
      "def inner():\n"
      "    return stacks.stack()\n"
      "def outer():\n"
      "    return inner()\n"
      "results = []\n"
      "for limits in [(16, 4096), (1, 4096), (16, 4096), (16, 12)]:\n"
      "    stacks.set_limits(*limits)\n"
      "    results.append(outer())\n"
      "assert results[0] == results[2], results\n"
      "assert results[1] == (1, '<string>:3 inner\\n'), results[1]\n"
      "assert len(results[3][1]) == 11 and results[0][1].startswith(results[3][1]), results[3]\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
}

TEST(PythonStack, SitesDroppedFromTheKeptOnesAndForgottenOnesAreWrittenAgain) {
  start();
  // More call sites than are kept: one function per site, each called twice, the second time after
  // every other site had its turn (so the first sites' texts were dropped and are written again).
  run("import stacks\n"
      "sources = '\\n'.join(f'def site_{i}():\\n    return stacks.stack()' for i in range(100))\n"
      "exec(compile(sources, 'sites.py', 'exec'))\n"
      "first = [globals()[f'site_{i}']()[1].splitlines()[0] for i in range(100)]\n"
      "second = [globals()[f'site_{i}']()[1].splitlines()[0] for i in range(100)]\n"
      "assert first == second == [f'sites.py:{2 * i + 2} site_{i}' for i in range(100)], (first[:3], second[:3])\n"
      "stacks.forget()\n"
      "assert site_7()[1].splitlines()[0] == 'sites.py:16 site_7'\n");
  ASSERT_EQ(Py_FinalizeEx(), 0);
}

}  // namespace

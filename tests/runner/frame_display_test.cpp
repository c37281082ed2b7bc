// How frames are shown to a person (harness/text/frame_display.h).
#include "harness/text/frame_display.h"

#include <gtest/gtest.h>

namespace gilsan::text {
namespace {

TEST(FrameDisplay, TemplateArgumentsAreElidedOperatorsKept) {
  EXPECT_EQ(elide_template_arguments("std::function<void ()>::operator()() const"),
            "std::function<...>::operator()() const");
  EXPECT_EQ(elide_template_arguments("std::_Function_handler<std::vector<std::string> (unsigned long), "
                                     "gilsan::X::{lambda(unsigned long)#2}>::_M_invoke(std::_Any_data const&)"),
            "std::_Function_handler<...>::_M_invoke(std::_Any_data const&)");
  EXPECT_EQ(elide_template_arguments("operator<<(std::ostream&, A const&)"), "operator<<(std::ostream&, A const&)");
  EXPECT_EQ(elide_template_arguments("Thing::operator->() const"), "Thing::operator->() const");
  EXPECT_EQ(elide_template_arguments("a<b<c>>::f(d<e>)"), "a<...>::f(d<...>)");
  EXPECT_EQ(elide_template_arguments("unbalanced<x"), "unbalanced<x");
}

TEST(FrameDisplay, GilsansOwnFramesAreRecognised) {
  EXPECT_TRUE(is_gilsan_frame_text(
      "gilsan::ScenarioStacks::capture[abi:cxx11](unsigned long) const+0x135 (gilsan) at /src/scenario_stacks.cpp:52"));
  EXPECT_TRUE(is_gilsan_frame_text("[inlined] operator() (gilsan) at /src/scenario_sanitizer.cpp:310"));
  EXPECT_TRUE(is_gilsan_frame_text("std::_Function_handler<void (), gilsan::Y>::_M_invoke()+0xf (libstdc++.so.6)"));
  EXPECT_TRUE(is_gilsan_frame_text("some_function+0x10 (libgilsan_inject.so) at x.cpp:3"));
  EXPECT_TRUE(is_gilsan_frame_text("/usr/lib/gilsan/python_lock_tracing.py:40 acquire"));
  EXPECT_FALSE(is_gilsan_frame_text("expects_pass_with_inversion.py:14 <module>"));
  EXPECT_FALSE(is_gilsan_frame_text("start_thread (libc.so.6) at ./nptl/pthread_create.c:442"));
  EXPECT_FALSE(is_gilsan_frame_text("0x7fe9f2cd44a3 (libstdc++.so.6)"));
  EXPECT_FALSE(is_gilsan_frame_text("my::Engine<int>::run()+0x2 (libmine.so) at engine.cpp:9"));
}

TEST(FrameDisplay, APythonFrameKeepsItsFunctionsAngleBrackets) {
  EXPECT_EQ(display_frame_text("x.py:14 <module>"), "x.py:14 <module>");
  EXPECT_EQ(display_frame_text("my::Engine<int>::run()+0x2 (libmine.so) at engine.cpp:9"),
            "my::Engine<...>::run()+0x2 (libmine.so) at engine.cpp:9");
}

}  // namespace
}  // namespace gilsan::text

// What the event-source tests share: a Sanitizer that records its reports, configured with the
// shipped driver profile, and host functions that run a test's lambda on the driver's thread.
#pragma once

#include <cuda.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "checkers/core/sanitizer.h"
#include "checkers/inject/inject_runtime.h"
#include "checkers/sources/profile_behaviour.h"
#include "checkers/sources/thread_identity.h"
#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {

// A Sanitizer with every checker on and a RecordingSink; `suppressions_text` as a file would hold.
struct RecordingSanitizer {
  // `stacks`: the injected mode's native stacks (capture_injected_stack), else none.
  explicit RecordingSanitizer(std::string_view suppressions_text = "", bool stacks = false) {
    SanitizerConfig config;
    if (stacks) {
      config.capture_stack = inject::capture_injected_stack;
      config.symbolize_stack = inject::symbolize_injected_stack;
    }
    config.driver = behaviour_from_profile(load_profile_for_sources());
    config.suppressions = Suppressions::parse(suppressions_text, "test.supp");
    config.sinks.push_back(sink);
    sanitizer = std::make_unique<Sanitizer>(std::move(config));
  }
  std::vector<Report> reports_of(Checker checker) const {
    std::vector<Report> found = sink->reports();
    std::erase_if(found, [checker](const Report& report) { return report.checker != checker; });
    return found;
  }

  std::shared_ptr<RecordingSink> sink = std::make_shared<RecordingSink>();
  std::unique_ptr<Sanitizer> sanitizer;
};

// A host function whose body is a lambda: enqueue with fn = run_lambda, userData = &lambda.
using HostBody = std::function<void()>;
inline void CUDA_CB run_lambda(void* body) { (*static_cast<HostBody*>(body))(); }

// What the gilsan module's trampoline does around a Python callable: take and give back the GIL,
// told to the Sanitizer on the thread that runs the host function.
inline void with_simulated_gil(Sanitizer& sanitizer, const std::function<void()>& body = {}) {
  const ThreadId self = current_thread_id();
  sanitizer.gil_acquire_begin(self);
  sanitizer.gil_acquired(self);
  if (body) body();
  sanitizer.gil_released(self);
}

}  // namespace gilsan::checkers::testing

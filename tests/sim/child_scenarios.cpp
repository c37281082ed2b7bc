#include "tests/sim/child_scenarios.h"

#include <mutex>

namespace gilsan::test {

int child_inside(const std::string&);
int child_outside(const std::string&);
int child_own_stream_synchronize(const std::string&);
int child_later_event_synchronize(const std::string&);
int child_own_work_queries(const std::string&);
int child_init(const std::string&);
int child_devices(const std::string&);
int child_topology(const std::string&);
int child_enqueue_depth(const std::string&);
int child_sticky_error(const std::string&);
int child_exit_with_pending_work(const std::string&);
int child_injected_failures(const std::string&);
int child_unknown_kernel(const std::string&);
int child_enqueued_work(const std::string&);
int child_work_enqueued_before_host_function(const std::string&);

const ChildScenario* find_child_scenario(const std::string& name) {
  static const ChildScenario kScenarios[] = {
      {"inside", child_inside},
      {"outside", child_outside},
      {"own-stream-synchronize", child_own_stream_synchronize},
      {"later-event-synchronize", child_later_event_synchronize},
      {"own-work-queries", child_own_work_queries},
      {"init", child_init, true},
      {"devices", child_devices},
      {"topology", child_topology},
      {"enqueue-depth", child_enqueue_depth},
      {"sticky-error", child_sticky_error},
      {"exit-with-pending-work", child_exit_with_pending_work},
      {"injected-failures", child_injected_failures},
      {"unknown-kernel", child_unknown_kernel, true},
      {"enqueued-work", child_enqueued_work},
      {"work-enqueued-before-host-function", child_work_enqueued_before_host_function},
  };
  for (const ChildScenario& scenario : kScenarios)
    if (name == scenario.name) return &scenario;
  return nullptr;
}

void report(const std::string& key, const std::string& value) {
  static auto* mutex = new std::mutex();  // lines from several threads stay whole; leaked for exit
  std::lock_guard<std::mutex> guard(*mutex);
  std::printf("%s %s\n", key.c_str(), value.c_str());
  std::fflush(stdout);
}

}  // namespace gilsan::test

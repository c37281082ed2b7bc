// InterruptHook: stops the run cleanly when gilsan itself gets SIGINT, SIGTERM or SIGHUP.
//
// The scenario runs in its own process group, so a Ctrl-C at the terminal reaches only gilsan;
// without this, gilsan would die and leave a hung scenario running. The handlers only set a flag;
// the supervisor's next tick sees it and terminates the group like on a timeout.
#pragma once

#include <signal.h>

#include "harness/runner/child_supervisor.h"

namespace gilsan {

class InterruptHook : public SupervisionHook {
 public:
  // Installs the handlers; the destructor restores the previous ones. One instance at a time.
  InterruptHook();
  ~InterruptHook() override;
  InterruptHook(const InterruptHook&) = delete;
  InterruptHook& operator=(const InterruptHook&) = delete;

  std::optional<Verdict> on_tick(pid_t child) override;

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3];
};

}  // namespace gilsan

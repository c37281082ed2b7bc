#include "harness/runner/interrupt_hook.h"

#include "harness/scenario/signal_names.h"

namespace gilsan {
namespace {

volatile sig_atomic_t received_signal = 0;

void remember_signal(int signal_number) { received_signal = signal_number; }

}  // namespace

InterruptHook::InterruptHook() {
  received_signal = 0;
  struct sigaction action = {};
  action.sa_handler = remember_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: the supervisor's poll() returns at once with EINTR
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &previous_[i]);
}

InterruptHook::~InterruptHook() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

std::optional<Verdict> InterruptHook::on_tick(pid_t) {
  if (received_signal == 0) return std::nullopt;
  return Verdict{{OutcomeKind::Interrupted, signal_name(received_signal)},
                 "gilsan received " + signal_name(received_signal) + " and stopped the scenario"};
}

}  // namespace gilsan

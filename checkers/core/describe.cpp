#include "checkers/core/describe.h"

namespace gilsan::checkers {
namespace {

std::string thread_only(const ThreadInfo& thread) {
  std::string text = "thread " + std::to_string(thread.id);
  if (!thread.name.empty()) text += " (" + thread.name + ")";
  return text;
}

// The host function the thread of an edge runs, or a neutral phrase when the source did not say.
std::string running(const EdgeEvidence& evidence) {
  if (evidence.thread.host_function) return describe(*evidence.thread.host_function);
  return "a host function";
}

// What the thread does to wait for `to`, as the end of a sentence.
std::string action(const PseudoLock& to, const EdgeEvidence& evidence) {
  switch (evidence.wait) {
    case WaitKind::driver_wait:
      return "waits in " + (evidence.call ? describe(*evidence.call) : std::string("the driver")) +
             " for " + to.label();
    case WaitKind::driver_blocked:
      return "calls " + (evidence.call ? describe(*evidence.call) : std::string("the driver")) +
             ", which the driver blocks while a host function of context " + hex(to.context) +
             " runs";
    case WaitKind::gil:
      return "waits for the GIL";
    case WaitKind::user_lock:
      return "waits for " + to.label();
    case WaitKind::callback_thread:
      return "needs " + to.label() + ", which runs one host function at a time";
  }
  return "waits for " + to.label();
}

}  // namespace

std::string describe(const HostFunction& host_function) {
  std::string text = "host function ";
  text += host_function.callable.empty() ? std::string("(unnamed)") : host_function.callable;
  text += " (" + std::string(to_string(host_function.kind));
  if (!host_function.implementation.empty()) text += ", " + host_function.implementation;
  text += ")";
  if (host_function.stream) text += " on stream " + hex(*host_function.stream);
  return text;
}

std::string describe(const ThreadInfo& thread) {
  std::string text = thread_only(thread);
  if (thread.host_function) text += " running " + describe(*thread.host_function);
  return text;
}

std::string describe(const CallInfo& call) {
  std::string arguments;
  auto add = [&](const std::string& part) {
    if (!arguments.empty()) arguments += ", ";
    arguments += part;
  };
  if (call.stream) add("stream " + hex(*call.stream));
  if (call.event) add("event " + hex(*call.event));
  if (!call.stream && !call.event && call.context != 0) add("context " + hex(call.context));
  return call.entry_point + "(" + arguments + ")";
}

std::string describe_result(const CallInfo& call) {
  if (!call.returned || !call.result) return "has not returned";
  const std::string code = std::to_string(*call.result);
  return call.result_name.empty() ? "code " + code : call.result_name + " (" + code + ")";
}

std::string edge_sentence(const PseudoLock& from, const PseudoLock& to,
                          const EdgeEvidence& evidence) {
  const std::string who = thread_only(evidence.thread);
  switch (from.kind) {
    case PseudoLockKind::gil:
      return who + " holds the GIL and " + action(to, evidence) + ".";
    case PseudoLockKind::user_lock:
      return who + " holds " + from.label() + " and " + action(to, evidence) + ".";
    case PseudoLockKind::stream_completion:
    case PseudoLockKind::context_completion:
      return from.label() + " waits for " + running(evidence) + ", run by " + who + ", which " +
             action(to, evidence) + ".";
    case PseudoLockKind::callback_thread:
      return from.label() + " (" + who + ") is busy with " + running(evidence) + ", which " +
             action(to, evidence) + ".";
    case PseudoLockKind::host_function_lock:
      return from.label() + " is held while " + running(evidence) + " runs on " + who + ", which " +
             action(to, evidence) + ".";
  }
  return who + " holds " + from.label() + " and " + action(to, evidence) + ".";
}

}  // namespace gilsan::checkers

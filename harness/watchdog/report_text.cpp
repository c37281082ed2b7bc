// The text report: the class and the cycle first (what a person needs in ten seconds), then what was
// inferred, then every thread with its stacks, the threads of the cycle first.
#include <algorithm>
#include <set>
#include <sstream>

#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/proc_threads.h"
#include "harness/watchdog/report.h"

namespace gilsan::watchdog {
namespace {

std::string milliseconds(std::uint64_t ns) { return std::to_string((ns + 500'000) / 1'000'000) + " ms"; }

std::string module_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string describe_kernel_state(const ProcThreadState& proc) {
  std::string text = std::string("state ") + proc.state;
  if (proc.syscall.kind == SyscallState::Kind::InSyscall) text += ", in " + syscall_name(proc.syscall.number);
  if (proc.syscall.kind == SyscallState::Kind::Running) text += ", running";
  if (!proc.wchan.empty()) text += ", wchan " + proc.wchan;
  return text;
}

void write_native_stack(std::ostream& out, const ThreadSnapshot& thread) {
  if (thread.native_stack.empty()) {
    out << "    native stack: none" << (thread.native_stack_note.empty() ? "" : " (" + thread.native_stack_note + ")")
        << "\n";
    return;
  }
  out << "    native stack" << (thread.native_stack_note.empty() ? "" : " (" + thread.native_stack_note + ")")
      << ":\n";
  for (std::size_t i = 0; i < thread.native_stack.size(); ++i) {
    const NativeFrame& frame = thread.native_stack[i];
    out << "      #" << i << (i < 10 ? "  " : " ") << hex(frame.address) << " ";
    if (frame.inlined) {
      out << "[inlined] " << (frame.symbol.empty() ? "??" : frame.symbol);
    } else if (!frame.symbol.empty()) {
      out << frame.symbol << "+" << hex(frame.symbol_offset);
    } else {
      out << "??";
    }
    if (!frame.module.empty()) out << " (" << module_name(frame.module) << "+" << hex(frame.module_offset) << ")";
    if (!frame.file.empty()) out << " at " << frame.file << (frame.line > 0 ? ":" + std::to_string(frame.line) : "");
    out << "\n";
  }
}

void write_thread(std::ostream& out, const HangReport& report, const ThreadSnapshot& thread) {
  const ThreadFacts* facts = report.classification.facts.find(thread.tid);
  out << "  " << (facts != nullptr ? facts->label() : "thread " + std::to_string(thread.tid));
  if (thread.proc) out << " '" << thread.proc->comm << "', " << describe_kernel_state(*thread.proc);
  out << "\n";
  if (facts != nullptr) {
    if (facts->gil.state != board::GilState::Unknown) {
      out << "    GIL: " << board::to_string(facts->gil.state) << " (" << (facts->gil.inferred ? "inferred: " : "")
          << facts->gil.source << ")\n";
    }
    if (facts->call) {
      const CallFact& call = *facts->call;
      out << "    in " << call.entry_point;
      if (call.handles_known) {
        out << "(context " << hex(call.context) << ", stream " << hex(call.stream);
        if (call.event != 0) out << ", event " << hex(call.event);
        out << ")";
        if (call.entered_ns != 0 && report.snapshot.taken_ns > call.entered_ns) {
          out << " for " << milliseconds(report.snapshot.taken_ns - call.entered_ns);
        }
      } else {
        out << " (inferred from native frames)";
      }
      out << "\n";
    }
    if (facts->host_function) {
      out << "    running " << describe_host_function(facts->host_function->record)
          << (facts->host_function->inferred ? " (inferred)" : "") << "\n";
    }
    if (facts->waiting_lock) out << "    waiting for lock " << facts->waiting_lock->name << "\n";
    for (const board::LockRecord& lock : facts->held_locks) out << "    holds lock " << lock.name << "\n";
    if (facts->native_wait.kind != NativeWait::Kind::None) {
      out << "    native frames say: " << to_string(facts->native_wait.kind) << " (" << facts->native_wait.frame
          << ")\n";
    }
  }
  if (thread.python_stack) {
    out << "    Python stack (most recent call first):\n";
    for (const PythonFrame& frame : *thread.python_stack) {
      out << "      " << frame.file << ":" << frame.line << " in " << frame.function << "\n";
    }
  }
  write_native_stack(out, thread);
}

}  // namespace

std::string render_text(const HangReport& report) {
  std::ostringstream out;
  const Classification& classification = report.classification;
  out << "gilsan: " << to_string(report.kind) << " in process " << report.snapshot.pid << ": "
      << (report.snapshot.crash && report.kind == DetectionKind::Crash ? signal_name(report.snapshot.crash->signal)
                                                                       : report.class_name)
      << "\n";
  out << "  " << report.summary << "\n";
  if (report.kind == DetectionKind::Hang) {
    out << "  quiet period " << milliseconds(report.quiet_ns) << "; snapshot took "
        << milliseconds(report.reported_ns > report.detected_ns ? report.reported_ns - report.detected_ns : 0) << "\n";
  }
  if (!classification.cycle.empty()) {
    out << "  cycle:\n";
    for (std::size_t i = 0; i < classification.cycle.size(); ++i) {
      const WaitEdge& edge = classification.cycle[i];
      out << "    " << (i + 1) << ". " << edge.text;
      if (edge.inferred) out << "  [inferred: " << edge.evidence << "]";
      out << "\n";
    }
    if (classification.cycles_found > 1) {
      out << "  (" << classification.cycles_found - 1 << " other cycle(s) in the graph; see the JSON or DOT)\n";
    }
  }
  if (!classification.reasons.empty()) {
    out << "  why:\n";
    for (const std::string& reason : classification.reasons) out << "    - " << reason << "\n";
  }
  if (!classification.inferred.empty()) {
    out << "  inferred (not written on the board):\n";
    for (const std::string& fact : classification.inferred) out << "    - " << fact << "\n";
  }
  if (!report.snapshot.notes.empty()) {
    out << "  evidence gaps:\n";
    for (const std::string& note : report.snapshot.notes) out << "    - " << note << "\n";
  }

  // Threads of the cycle (and the crashing thread) first, then the rest in tid order.
  std::vector<int> order;
  if (report.snapshot.crash) order.push_back(report.snapshot.crash->tid);
  for (const WaitEdge& edge : classification.cycle) {
    const WaitNode* node = classification.graph.node(edge.from);
    if (node != nullptr && node->kind == NodeKind::Thread) order.push_back(node->tid);
  }
  for (const ThreadSnapshot& thread : report.snapshot.threads) order.push_back(thread.tid);
  std::set<int> written;
  out << "threads:\n";
  for (int tid : order) {
    const ThreadSnapshot* thread = report.snapshot.find_thread(tid);
    if (thread == nullptr || !written.insert(tid).second) continue;
    write_thread(out, report, *thread);
  }
  return out.str();
}

}  // namespace gilsan::watchdog

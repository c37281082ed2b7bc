// The text report: the class and the cycle first (what a person needs in ten seconds), then what was
// inferred, then the threads with their stacks, the threads of the cycle first. The short form (the
// default) keeps to the cycle's threads and the program's own native frames; the full form has every
// thread and frame but gilsan's own. Template arguments are elided in both (harness/text/frame_display.h).
#include <algorithm>
#include <set>
#include <sstream>

#include "harness/text/frame_display.h"
#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/lock_description.h"
#include "harness/watchdog/proc_threads.h"
#include "harness/watchdog/report.h"

namespace gilsan::watchdog {
namespace {

// The program's own native frames the short form shows per thread.
constexpr std::size_t kShortNativeFrames = 4;

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

void write_frame(std::ostream& out, std::size_t index, const NativeFrame& frame) {
  out << "      #" << index << (index < 10 ? "  " : " ") << hex(frame.address) << " ";
  const std::string symbol = text::elide_template_arguments(frame.symbol);
  if (frame.inlined) {
    out << "[inlined] " << (symbol.empty() ? "??" : symbol);
  } else if (!symbol.empty()) {
    out << symbol << "+" << hex(frame.symbol_offset);
  } else {
    out << "??";
  }
  if (!frame.module.empty()) out << " (" << module_name(frame.module) << "+" << hex(frame.module_offset) << ")";
  if (!frame.file.empty()) out << " at " << frame.file << (frame.line > 0 ? ":" + std::to_string(frame.line) : "");
  out << "\n";
}

// The C library, CPython, the C++ runtime, the loader and the driver: frames under every program, not
// the program's own code.
bool runtime_frame(const NativeFrame& frame) {
  const std::string name = module_name(frame.module);
  for (const char* runtime : {"libc.so", "libc-", "libpthread", "ld-linux", "libpython", "libstdc++", "libgcc_s",
                              "libm.so", "libdl", "libcuda.so", "libcudart"}) {
    if (name.starts_with(runtime)) return true;
  }
  return frame.module.find("/lib-dynload/") != std::string::npos;
}

void write_native_stack(std::ostream& out, const ThreadSnapshot& thread, TextDetail detail) {
  const std::string note = thread.native_stack_note.empty() ? "" : " (" + thread.native_stack_note + ")";
  if (thread.native_stack.empty()) {
    out << "    native stack: none" << note << "\n";
    return;
  }
  // gilsan's own frames are never shown; the short form shows only the program's own code.
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < thread.native_stack.size(); ++i) {
    const NativeFrame& frame = thread.native_stack[i];
    if (text::is_gilsan_native_frame(frame.symbol, frame.module)) continue;
    if (detail == TextDetail::Short && (runtime_frame(frame) || shown.size() == kShortNativeFrames)) continue;
    shown.push_back(i);
  }
  const std::size_t total = thread.native_stack.size();
  if (detail == TextDetail::Short) {
    if (shown.empty()) {
      out << "    native stack: " << total << " frames, none of them the program's own" << note
          << " (--report full shows them)\n";
      return;
    }
    out << "    native stack, the program's own frames (" << shown.size() << " of " << total
        << "; --report full shows all)" << note << ":\n";
  } else {
    out << "    native stack" << note;
    if (shown.size() < total) out << " (" << total - shown.size() << " of gilsan's own frames left out)";
    out << ":\n";
  }
  for (std::size_t i : shown) write_frame(out, i, thread.native_stack[i]);
}

void write_thread(std::ostream& out, const HangReport& report, const ThreadSnapshot& thread, TextDetail detail) {
  const ThreadFacts* facts = report.classification.facts.find(thread.tid);
  out << "  " << (facts != nullptr ? facts->label() : "thread " + std::to_string(thread.tid));
  if (thread.proc) out << " '" << thread.proc->comm << "', " << describe_kernel_state(*thread.proc);
  out << "\n";
  if (facts != nullptr) {
    if (!facts->activity.empty()) out << "    activity: " << facts->activity << "\n";
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
          out << " for " << milliseconds_text(report.snapshot.taken_ns - call.entered_ns);
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
    if (facts->waiting_lock) {
      const board::LockRecord& lock = *facts->waiting_lock;
      // "waits to read ..." -> "waiting to read ...", as the other lines of a thread say it.
      const bool plain_lock = lock.kind == board::LockKind::Python;
      out << "    waiting" << (plain_lock ? std::string(" for lock") : std::string(lock_wait_words(lock.kind)).substr(5))
          << " " << facts->waiting_lock_label;
      if (!facts->waiting_lock_site.empty()) out << ", " << facts->waiting_lock_site;
      if (lock.native() && lock.holder_tid != 0) out << ", held by thread " << lock.holder_tid << " (as the lock says)";
      out << "\n";
    }
    for (const board::LockRecord& lock : facts->held_locks) out << "    holds lock " << lock.name << "\n";
    if (facts->native_wait.kind != NativeWait::Kind::None) {
      out << "    native frames say: " << to_string(facts->native_wait.kind) << " (" << facts->native_wait.frame
          << ")\n";
    }
  }
  if (thread.python_stack) {
    std::vector<const PythonFrame*> shown;
    for (const PythonFrame& frame : *thread.python_stack) {
      if (!text::is_gilsan_python_frame(frame.file)) shown.push_back(&frame);
    }
    // A thread waiting to enter Python (a host function's trampoline waiting for the GIL) has no frame yet.
    if (shown.empty()) out << "    Python stack: none (no Python frame on this thread)\n";
    if (!shown.empty()) out << "    Python stack (most recent call first):\n";
    for (const PythonFrame* frame : shown)
      out << "      " << frame->file << ":" << frame->line << " in " << frame->function << "\n";
  }
  write_native_stack(out, thread, detail);
}

}  // namespace

std::string render_text(const HangReport& report, TextDetail detail) {
  std::ostringstream out;
  const Classification& classification = report.classification;
  out << "gilsan: " << to_string(report.kind) << " in process " << report.snapshot.pid << ": "
      << (report.snapshot.crash && report.kind == DetectionKind::Crash ? signal_name(report.snapshot.crash->signal)
                                                                       : report.class_name)
      << "\n";
  out << "  " << report.summary << "\n";
  if (report.kind == DetectionKind::Hang) {
    const std::string snapshot_took =
        milliseconds_text(report.reported_ns > report.detected_ns ? report.reported_ns - report.detected_ns : 0);
    if (report.certain_for_ns > 0) {
      out << "  every wait of the cycle is on the board and it held for " << milliseconds_text(report.certain_for_ns)
          << ": reported without waiting out the quiet period (" << milliseconds_text(report.quiet_ns)
          << "); snapshot took " << snapshot_took << "\n";
    } else {
      out << "  quiet period " << milliseconds_text(report.quiet_ns) << "; snapshot took " << snapshot_took << "\n";
    }
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
  if (detail == TextDetail::Full && !classification.inferred.empty()) {
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
    if (node != nullptr && node->kind == NodeKind::thread) order.push_back(node->tid);
  }
  for (const ThreadSnapshot& thread : report.snapshot.threads) order.push_back(thread.tid);
  // The short form: the threads of the cycle (or the crashing one); all of them when there is neither.
  const std::size_t leading = order.size() - report.snapshot.threads.size();
  std::set<int> written;
  out << "threads:\n";
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (detail == TextDetail::Short && leading > 0 && i >= leading) break;
    const ThreadSnapshot* thread = report.snapshot.find_thread(order[i]);
    if (thread == nullptr || !written.insert(order[i]).second) continue;
    write_thread(out, report, *thread, detail);
  }
  if (written.size() < report.snapshot.threads.size()) {
    const std::size_t others = report.snapshot.threads.size() - written.size();
    out << "  (" << others << (others == 1 ? " other thread" : " other threads") << ": --report full shows them)\n";
  }
  return out.str();
}

}  // namespace gilsan::watchdog

#include "checkers/core/report_text.h"

#include "checkers/core/describe.h"
#include "harness/text/frame_display.h"

namespace gilsan::checkers {
namespace {

// A stack as a person reads it: the user's frames first, gilsan's own (the capture path, the lock
// wrappers, the trampolines) left out, template arguments elided. The JSON report keeps every frame.
void append_stack(std::string& text, const Stack& stack, const std::string& indent) {
  if (stack.empty()) {
    text += indent + "(no stack captured)\n";
    return;
  }
  std::size_t shown = 0;
  for (const std::string& frame : stack) {
    if (gilsan::text::is_gilsan_frame_text(frame)) continue;
    text += indent + "#" + std::to_string(shown++) + " " + gilsan::text::display_frame_text(frame) + "\n";
  }
  if (shown == 0) text += indent + "(only gilsan's own frames; the JSON report has them)\n";
}

}  // namespace

std::string render_text(const Report& report) {
  std::string text = "gilsan: " + std::string(to_string(report.checker));
  if (report.deadlock_class) text += " (" + std::string(to_string(*report.deadlock_class)) + ")";
  text += ": " + report.summary + "\n";
  for (std::size_t i = 0; i < report.edges.size(); ++i) {
    text += "  " + std::to_string(i + 1) + ". " + report.edges[i].sentence + "\n";
  }
  for (std::size_t i = 0; i < report.edges.size(); ++i) {
    const EdgeEvidence& evidence = report.edges[i].evidence;
    text += "  stack of " + std::to_string(i + 1) + " (thread " +
            std::to_string(evidence.thread.id) + "):\n";
    append_stack(text, evidence.stack, "    ");
  }
  if (report.checker != Checker::lock_order_cycle) {
    if (!report.message.empty()) text += "  " + report.message + "\n";
    if (report.thread) text += "  on " + describe(*report.thread) + "\n";
    // A lost host function's stack is where it was enqueued: its run never had one.
    text += report.checker == Checker::host_function_lost_at_exit ? "  enqueued at:\n" : "  stack:\n";
    append_stack(text, report.stack, "    ");
  }
  return text;
}

std::string render_text(const RunSummary& summary) {
  std::string text = "gilsan: " + std::to_string(summary.reports.size()) + " report" +
                     (summary.reports.size() == 1 ? "" : "s");
  if (summary.suppressed != 0) text += ", " + std::to_string(summary.suppressed) + " suppressed";
  if (summary.ignored_events != 0) {
    text += ", " + std::to_string(summary.ignored_events) + " events that did not fit the model";
  }
  text += "\n";
  for (const UnusedSuppression& unused : summary.unused_suppressions) {
    text += "gilsan: unused suppression " + unused.file + ":" + std::to_string(unused.line) + ": " +
            unused.checker + ":" + unused.pattern + "\n";
  }
  for (const std::string& error : summary.sink_errors) text += "gilsan: " + error + "\n";
  return text;
}

}  // namespace gilsan::checkers

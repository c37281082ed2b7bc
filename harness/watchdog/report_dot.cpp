// The wait-for graph as Graphviz DOT: the cycle in bold red, inferred edges dashed.
#include <set>
#include <sstream>

#include "harness/watchdog/report.h"

namespace gilsan::watchdog {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

const char* shape(NodeKind kind) {
  switch (kind) {
    case NodeKind::thread: return "box";
    case NodeKind::gil: return "doubleoctagon";
    case NodeKind::stream_completion:
    case NodeKind::event:
    case NodeKind::context_completion: return "ellipse";
    case NodeKind::callback_thread: return "hexagon";
    case NodeKind::host_function_lock: return "octagon";
    case NodeKind::user_lock: return "diamond";
  }
  return "box";
}

}  // namespace

std::string render_dot(const HangReport& report) {
  const Classification& classification = report.classification;
  std::set<std::pair<std::string, std::string>> in_cycle;
  for (const WaitEdge& edge : classification.cycle) in_cycle.insert({edge.from, edge.to});

  std::ostringstream out;
  out << "digraph gilsan_wait_for {\n";
  out << "  label=" << quoted(report.class_name + " (process " + std::to_string(report.snapshot.pid) + ")")
      << "; labelloc=t; rankdir=LR;\n";
  out << "  node [fontname=\"monospace\"]; edge [fontname=\"monospace\", fontsize=10];\n";
  for (const WaitNode& node : classification.graph.nodes()) {
    out << "  " << quoted(node.id) << " [shape=" << shape(node.kind) << ", label=" << quoted(node.label) << "];\n";
  }
  for (const WaitEdge& edge : classification.graph.edges()) {
    bool cycle = in_cycle.count({edge.from, edge.to}) != 0;
    out << "  " << quoted(edge.from) << " -> " << quoted(edge.to) << " [label="
        << quoted(edge.relation == EdgeRelation::WaitsFor ? "waits for" : "held by");
    if (cycle) out << ", color=red, penwidth=2";
    if (edge.inferred) out << ", style=dashed";
    out << "];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace gilsan::watchdog

// WaitForGraph: who waits for what and what is held by whom. Edges point from a waiter to what it
// needs: thread -> resource ("waits for"), resource -> thread ("held by" / "is provided by"). A cycle
// is a deadlock. Each edge carries the sentence the report prints and whether it was inferred.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gilsan::watchdog {

// A thread, an event (the completion of the work recorded before it: the board shows the events a
// thread waits for; the sanitizer core folds an event into its stream's completion at the record), and
// the pseudo-locks of the core's one table (checkers/core/pseudo_lock_kinds.inc), under the same names.
enum class NodeKind {
  thread,
  event,
#define GILSAN_PSEUDO_LOCK_KIND(enumerator, core_name, graph_name, description) enumerator,
#include "checkers/core/pseudo_lock_kinds.inc"
#undef GILSAN_PSEUDO_LOCK_KIND
};

enum class EdgeRelation { WaitsFor, HeldBy };

struct WaitNode {
  std::string id;  // "thread:12345", "gil", "stream:0x10", "event:0x20", "context:0x30",
                   // "callback-thread:0x30", "driver-lock:0x30", "lock:0x40", "lock:unknown@12345"
  NodeKind kind = NodeKind::thread;
  std::string label;  // "thread 12345 (main)", "stream 0x10"...
  int tid = 0;        // Thread nodes
  std::uint64_t handle = 0;
};

struct WaitEdge {
  std::string from;
  std::string to;
  EdgeRelation relation = EdgeRelation::WaitsFor;
  std::string text;      // one sentence, e.g. "stream 0x10 waits for host function #3 ... on thread 12351"
  bool inferred = false;  // rests on native frames or elimination rather than the board
  std::string evidence;   // what it rests on, e.g. "native frame PyGILState_Ensure"
};

class WaitForGraph {
 public:
  // Adds a node unless one with its id exists; returns the node kept.
  const WaitNode& add_node(WaitNode node);
  // Adds an edge unless one from..to exists (the first, usually the better-founded, stays).
  void add_edge(WaitEdge edge);

  const WaitNode* node(const std::string& id) const;
  const std::vector<WaitNode>& nodes() const { return nodes_; }
  const std::vector<WaitEdge>& edges() const { return edges_; }
  std::vector<const WaitEdge*> edges_from(const std::string& id) const;

  // Elementary cycles, each once (starting at its earliest-added node), at most `limit` of them.
  // Without `include_inferred`, only edges resting on the board count.
  std::vector<std::vector<WaitEdge>> find_cycles(bool include_inferred, std::size_t limit = 64) const;

 private:
  std::vector<WaitNode> nodes_;
  std::map<std::string, std::size_t> index_;
  std::vector<WaitEdge> edges_;
};

const char* to_string(NodeKind kind);  // "thread", "event", or the table's graph_name: "stream", ...
const char* to_string(EdgeRelation relation);

}  // namespace gilsan::watchdog

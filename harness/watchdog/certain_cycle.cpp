#include "harness/watchdog/certain_cycle.h"

#include <algorithm>
#include <utility>

#include "harness/watchdog/thread_facts.h"
#include "harness/watchdog/wait_for_graph.h"

namespace gilsan::watchdog {

CertainCycleWatch::CertainCycleWatch(DriverCallBlocksPredicate blocks_while_host_function_runs,
                                     std::uint64_t confirmation_ns)
    : blocks_(std::move(blocks_while_host_function_runs)), confirmation_ns_(confirmation_ns) {}

void CertainCycleWatch::forget() {
  cycle_.clear();
  threads_.clear();
  since_ns_ = 0;
}

bool CertainCycleWatch::confirmed(std::uint64_t now_ns, const Snapshot& view) {
  if (!on()) return false;
  const SnapshotFacts facts = derive_facts(view);
  const WaitForGraph graph = build_wait_for_graph(view, facts, blocks_);
  const std::vector<std::vector<WaitEdge>> cycles = graph.find_cycles(false, 1);  // board edges only
  if (cycles.empty()) {
    forget();
    return false;
  }
  std::vector<std::string> edges;
  std::vector<int> threads;
  for (const WaitEdge& edge : cycles.front()) {
    edges.push_back(edge.from + ">" + edge.to);
    if (const WaitNode* node = graph.node(edge.from); node != nullptr && node->kind == NodeKind::thread) {
      threads.push_back(node->tid);
    }
  }
  std::sort(edges.begin(), edges.end());
  std::string cycle;
  for (const std::string& edge : edges) cycle += edge + "|";
  if (cycle != cycle_) {
    cycle_ = std::move(cycle);
    since_ns_ = now_ns;
    std::sort(threads.begin(), threads.end());
    threads_ = std::move(threads);
  }
  return now_ns - since_ns_ >= confirmation_ns_;
}

}  // namespace gilsan::watchdog

#include "harness/watchdog/wait_graph_builder.h"

#include <deque>
#include <set>

#include "checkers/core/pseudo_lock.h"
#include "checkers/core/synchronizing_calls.h"
#include "harness/watchdog/hex_format.h"
#include "harness/watchdog/lock_description.h"

namespace gilsan::watchdog {
namespace {

using board::GilState;

class Builder {
 public:
  Builder(const Snapshot& snapshot, const SnapshotFacts& facts, const DriverCallBlocksPredicate& blocks)
      : snapshot_(snapshot), facts_(facts), blocks_(blocks) {}

  WaitForGraph build() {
    for (const ThreadFacts& thread : facts_.threads) add_thread_waits(thread);
    while (!unresolved_.empty()) {
      // A copy: adding providers adds nodes, which may move the graph's node storage.
      WaitNode node = *graph_.node(unresolved_.front());
      unresolved_.pop_front();
      add_providers(node);
    }
    return std::move(graph_);
  }

 private:
  // --- nodes ---
  std::string thread_node(const ThreadFacts& thread) {
    WaitNode node{"thread:" + std::to_string(thread.tid), NodeKind::thread, thread.label(), thread.tid, 0};
    return graph_.add_node(std::move(node)).id;
  }
  std::string resource_node(NodeKind kind, std::string id, std::string label, std::uint64_t handle = 0) {
    bool is_new = graph_.node(id) == nullptr;
    graph_.add_node(WaitNode{id, kind, std::move(label), 0, handle});
    if (is_new) unresolved_.push_back(id);
    return id;
  }
  // A node of the core's table: its id is the kind's graph_name, then what tells it apart.
  static std::string id_of(NodeKind kind, const std::string& rest) { return to_string(kind) + (":" + rest); }
  std::string gil_node() { return resource_node(NodeKind::gil, to_string(NodeKind::gil), checkers::PseudoLock::gil().label()); }
  std::string stream_node(std::uint64_t stream, std::uint64_t context) {
    // The legacy (0, 1) and per-thread (2) default streams exist once per context.
    bool per_context = stream <= 2;
    std::string id = id_of(NodeKind::stream_completion, hex(stream) + (per_context ? "@" + hex(context) : ""));
    std::string label = "stream " + hex(stream) + (per_context ? " of context " + hex(context) : "");
    stream_contexts_[id] = context;
    return resource_node(NodeKind::stream_completion, id, label, stream);
  }
  std::string event_node(std::uint64_t event) {
    return resource_node(NodeKind::event, id_of(NodeKind::event, hex(event)), "event " + hex(event), event);
  }
  std::string context_node(std::uint64_t context) {
    return resource_node(NodeKind::context_completion, id_of(NodeKind::context_completion, hex(context)),
                         "context " + hex(context), context);
  }
  std::string callback_thread_node(std::uint64_t context) {
    return resource_node(NodeKind::callback_thread, id_of(NodeKind::callback_thread, hex(context)),
                         checkers::PseudoLock::callback_thread(context).label(), context);
  }
  std::string driver_lock_node(std::uint64_t context) {
    return resource_node(NodeKind::host_function_lock, id_of(NodeKind::host_function_lock, hex(context)),
                         checkers::PseudoLock::host_function_lock(context).label(), context);
  }

  void edge(std::string from, std::string to, EdgeRelation relation, std::string text, bool inferred,
            std::string evidence) {
    graph_.add_edge(WaitEdge{std::move(from), std::move(to), relation, std::move(text), inferred, std::move(evidence)});
  }

  // --- what each thread waits for ---
  void add_thread_waits(const ThreadFacts& thread) {
    std::string self = thread_node(thread);
    if (thread.gil.state == GilState::Waiting) {
      edge(self, gil_node(), EdgeRelation::WaitsFor, thread.label() + " waits for the GIL", thread.gil.inferred,
           thread.gil.source);
    }
    if (thread.gil.state == GilState::Holds) {
      edge(gil_node(), self, EdgeRelation::HeldBy, "the GIL is held by " + thread.label(), thread.gil.inferred,
           thread.gil.source);
    }
    if (thread.call) add_call_wait(thread, self);
    if (thread.waiting_lock && thread.waiting_lock->notification()) {
      add_notification_wait(thread, self);
    } else if (thread.waiting_lock && !waits_inside_its_call(thread)) {
      const board::LockRecord& lock = *thread.waiting_lock;
      const std::string name = (lock.native() ? "" : "lock ") + thread.waiting_lock_label;
      std::string id = resource_node(NodeKind::user_lock, id_of(NodeKind::user_lock, hex(lock.id)), name, lock.id);
      const std::string site = thread.waiting_lock_site.empty() ? "" : ", " + thread.waiting_lock_site;
      edge(self, id, EdgeRelation::WaitsFor, thread.label() + " " + lock_wait_words(lock.kind) + " " + name + site, false,
           "board");
    } else if (!thread.waiting_lock && !thread.call &&
               (thread.native_wait.kind == NativeWait::Kind::PythonLock ||
                thread.native_wait.kind == NativeWait::Kind::NativeLock)) {
      bool python = thread.native_wait.kind == NativeWait::Kind::PythonLock;
      std::string what = std::string("an unidentified ") + (python ? "Python lock" : "native mutex");
      const ThreadSnapshot* snapshot_thread = snapshot_.find_thread(thread.tid);
      if (snapshot_thread != nullptr && snapshot_thread->python_stack && !snapshot_thread->python_stack->empty()) {
        const PythonFrame& frame = snapshot_thread->python_stack->front();
        what += " (acquired at " + frame.file + ":" + std::to_string(frame.line) + " in " + frame.function + ")";
      }
      std::string id = resource_node(NodeKind::user_lock, id_of(NodeKind::user_lock, "unknown@" + std::to_string(thread.tid)), what);
      edge(self, id, EdgeRelation::WaitsFor, thread.label() + " waits for " + what, true,
           "native frame " + thread.native_wait.frame);
    }
  }

  void add_call_wait(const ThreadFacts& thread, const std::string& self) {
    const CallFact& call = *thread.call;
    std::string says = thread.label() + (thread.gil.state == GilState::Holds ? " holds the GIL and" : "") +
                       " waits in " + call.entry_point;
    std::string evidence = call.inferred ? "native frame " + call.entry_point : "board";
    const std::string& name = call.entry_point;
    // Which calls wait, and for what: the table the sanitizer's sources read too
    // (checkers/core/synchronizing_calls.inc).
    if (const std::optional<SynchronizingWait> waits_for = synchronizing_wait(name)) {
      switch (*waits_for) {
        case SynchronizingWait::stream:
          if (!call.handles_known) return wait_for_any_host_function(thread, self, says + "(stream unknown)");
          // The legacy stream waits for every blocking stream of its context (when the board knows
          // the context; else only for its own host functions, as before).
          if (waits_for_whole_context(call.stream) && !call.per_thread && call.context != 0) {
            edge(self, context_node(call.context), EdgeRelation::WaitsFor,
                 says + "(stream " + hex(call.stream) + ", the legacy stream: every blocking stream of context " +
                     hex(call.context) + ")",
                 call.inferred, evidence);
            return;
          }
          edge(self, stream_node(call.stream, call.context), EdgeRelation::WaitsFor,
               says + "(stream " + hex(call.stream) + ")", call.inferred, evidence);
          return;
        case SynchronizingWait::event:
          if (!call.handles_known) return wait_for_any_host_function(thread, self, says + "(event unknown)");
          edge(self, event_node(call.event), EdgeRelation::WaitsFor, says + "(event " + hex(call.event) + ")",
               call.inferred, evidence);
          return;
        case SynchronizingWait::context:
          if (!call.handles_known) return wait_for_any_host_function(thread, self, says + "(context unknown)");
          edge(self, context_node(call.context), EdgeRelation::WaitsFor, says + "(context " + hex(call.context) + ")",
               call.inferred, evidence);
          return;
      }
    }
    if (!blocks_ || !blocks_(name)) {
      if (thread.gil.state == GilState::Holds) wait_against_the_profile(thread, self, says, evidence);
      return;
    }
    {
      std::string why = ", which the driver holds back while a host function of ";
      if (call.handles_known && call.context != 0) {
        edge(self, driver_lock_node(call.context), EdgeRelation::WaitsFor,
             says + why + "context " + hex(call.context) + " runs", call.inferred, evidence + "; driver profile");
        return;
      }
      // Context unknown: any context whose host function is running may be the one holding it back.
      for (const ThreadFacts& other : facts_.threads) {
        if (other.tid == thread.tid || !other.host_function) continue;
        std::uint64_t context = other.host_function->record.context;
        edge(self, driver_lock_node(context), EdgeRelation::WaitsFor, says + why + "context " + hex(context) + " runs",
             true, evidence + "; driver profile; context of the call unknown");
      }
    }
  }

  // The profile says `call` returns while a host function runs, yet the thread has held the GIL inside
  // it for the whole quiet period while a host function of its context waits for that GIL: the evidence
  // wins (a call or a driver the profile did not measure, e.g. a kernel's first launch under lazy
  // loading). Inferred, and marked so that the report can say the profile and this driver disagree.
  void wait_against_the_profile(const ThreadFacts& thread, const std::string& self, const std::string& says,
                                const std::string& evidence) {
    const CallFact& call = *thread.call;
    for (const ThreadFacts& other : facts_.threads) {
      if (other.tid == thread.tid || !other.host_function || other.gil.state != GilState::Waiting) continue;
      const board::HostFunctionRecord& function = other.host_function->record;
      if (call.handles_known && call.context != 0 && function.context != 0 && function.context != call.context) continue;
      edge(self, driver_lock_node(function.context), EdgeRelation::WaitsFor,
           says + ", though the driver profile says it returns while a host function runs: this driver holds it "
                  "while " + describe_host_function(function) + " waits for the GIL",
           true, evidence + "; " + std::string(kAgainstTheProfile) + call.entry_point);
    }
  }

  // A synchronizing call whose handle is unknown (read from native frames) may wait for any host
  // function running on another thread.
  void wait_for_any_host_function(const ThreadFacts& thread, const std::string& self, const std::string& says) {
    for (const ThreadFacts& other : facts_.threads) {
      if (other.tid == thread.tid || !other.host_function) continue;
      edge(self, thread_node(other), EdgeRelation::WaitsFor,
           says + ", presumably for " + describe_host_function(other.host_function->record) + " on " + other.label(),
           true, "native frame " + thread.call->entry_point + "; the only host function running");
    }
  }

  // --- what provides or holds each resource ---
  void add_providers(const WaitNode& node) {
    switch (node.kind) {
      case NodeKind::stream_completion: return stream_providers(node);
      case NodeKind::event: return event_providers(node);
      case NodeKind::context_completion: return context_providers(node);
      case NodeKind::callback_thread: return callback_thread_holder(node);
      case NodeKind::host_function_lock: return driver_lock_holders(node);
      case NodeKind::user_lock: return lock_holders(node);
      case NodeKind::gil:
      case NodeKind::thread: return;  // GIL holders are added with the threads
    }
  }

  void stream_providers(const WaitNode& node) {
    std::uint64_t context = stream_contexts_[node.id];
    bool found = false;
    for (const ThreadFacts& runner : facts_.threads) {
      if (!runner.host_function) continue;
      const board::HostFunctionRecord& function = runner.host_function->record;
      if (!same_stream(function.stream, function.context, node.handle, context)) continue;
      edge(node.id, thread_node(runner), EdgeRelation::WaitsFor,
           node.label + " waits for " + describe_host_function(function) + " on " + runner.label(),
           runner.host_function->inferred, "board: host function running on the stream");
      found = true;
    }
    if (found) return;
    for (const board::HostFunctionRecord& pending : snapshot_.pending_host_functions) {
      if (!same_stream(pending.stream, pending.context, node.handle, context)) continue;
      edge(node.id, callback_thread_node(pending.context), EdgeRelation::WaitsFor,
           node.label + " waits for " + describe_host_function(pending) +
               " (pending), which can only start on the callback thread of context " + hex(pending.context),
           false, "board: pending host function");
      return;  // the oldest pending one is the first in line
    }
    // A host function inferred from a callback thread's frames (a ctypes or peer trampoline on the
    // real driver) has no known stream; when nothing on the board provides this stream, it may.
    for (const ThreadFacts& runner : facts_.threads) {
      if (!runner.host_function || !runner.host_function->inferred || runner.host_function->record.stream != 0) continue;
      if (runner.exited) continue;
      edge(node.id, thread_node(runner), EdgeRelation::WaitsFor,
           node.label + " presumably waits for " + describe_host_function(runner.host_function->record) + " on " +
               runner.label() + " (its stream is not known)",
           true, "the only host functions seen running have no recorded stream");
    }
  }

  void event_providers(const WaitNode& node) {
    for (const board::EventRecord& record : snapshot_.events) {
      if (record.event != node.handle) continue;
      // Recorded on the legacy stream, it completes after every blocking stream of the context, as
      // a wait on that stream does (synchronizing_calls.h).
      const bool legacy = waits_for_whole_context(record.stream) && record.context != 0;
      edge(node.id, legacy ? context_node(record.context) : stream_node(record.stream, record.context),
           EdgeRelation::WaitsFor,
           node.label + " was last recorded on stream " + hex(record.stream) +
               (legacy ? ", the legacy stream of context " + hex(record.context) : ""),
           false, "board: event record");
    }
  }

  void context_providers(const WaitNode& node) {
    for (const ThreadFacts& runner : facts_.threads) {
      if (!runner.host_function) continue;
      const board::HostFunctionRecord& function = runner.host_function->record;
      if (function.context != node.handle && function.context != 0) continue;
      edge(node.id, thread_node(runner), EdgeRelation::WaitsFor,
           node.label + " waits for " + describe_host_function(function) + " on " + runner.label(),
           runner.host_function->inferred, "board: host function running in the context");
    }
    for (const board::HostFunctionRecord& pending : snapshot_.pending_host_functions) {
      if (pending.context != node.handle) continue;
      edge(node.id, callback_thread_node(pending.context), EdgeRelation::WaitsFor,
           node.label + " waits for " + describe_host_function(pending) +
               " (pending), which can only start on its callback thread",
           false, "board: pending host function");
      return;
    }
  }

  void callback_thread_holder(const WaitNode& node) {
    for (const ThreadFacts& runner : facts_.threads) {
      if (!runner.host_function || runner.exited) continue;
      const board::HostFunctionRecord& function = runner.host_function->record;
      if (function.context != node.handle && function.context != 0) continue;
      edge(node.id, thread_node(runner), EdgeRelation::HeldBy,
           node.label + " is " + runner.label() + ", busy running " + describe_host_function(function),
           runner.host_function->inferred, "board: host function running");
    }
  }

  void driver_lock_holders(const WaitNode& node) {
    for (const ThreadFacts& runner : facts_.threads) {
      if (!runner.host_function || runner.exited) continue;
      const board::HostFunctionRecord& function = runner.host_function->record;
      if (function.context != node.handle && function.context != 0) continue;
      edge(node.id, thread_node(runner), EdgeRelation::HeldBy,
           "the driver holds back calls of context " + hex(node.handle) + " while " +
               describe_host_function(function) + " runs on " + runner.label(),
           runner.host_function->inferred, "driver profile; board: host function running");
    }
  }

  void lock_holders(const WaitNode& node) {
    if (native_lock_holder(node)) return;
    bool known = false;
    for (const ThreadFacts& holder : facts_.threads) {
      for (const board::LockRecord& lock : holder.held_locks) {
        if (node.handle == 0 || lock.id != node.handle) continue;
        edge(node.id, thread_node(holder), EdgeRelation::HeldBy, node.label + " is held by " + holder.label(), false,
             "board");
        known = true;
      }
    }
    if (known) return;
    // Nobody recorded holding it: any other thread that is itself blocked may be the holder.
    std::set<int> waiters;
    for (const WaitEdge* in : incoming(node.id)) waiters.insert(graph_.node(in->from)->tid);
    for (const ThreadFacts& other : facts_.threads) {
      if (other.exited || waiters.count(other.tid) != 0) continue;
      if (!waits_for_something(other)) continue;
      edge(node.id, thread_node(other), EdgeRelation::HeldBy,
           node.label + " may be held by " + other.label() + " (its holder is not recorded)", true,
           "elimination: a blocked thread other than the waiter");
    }
  }

  // A wait for a notification has no holder: any live Python thread may give it. A thread that is
  // itself blocked is the one a cycle can go through (a free thread may still notify, and then there is
  // no deadlock), so each blocked Python thread is a candidate notifier, marked inferred and said as
  // such, never as a holder.
  void add_notification_wait(const ThreadFacts& thread, const std::string& self) {
    const std::string& awaited = thread.waiting_lock_label;
    for (const ThreadFacts& other : facts_.threads) {
      if (other.tid == thread.tid || other.exited || !other.python_thread) continue;
      if (!waits_for_something(other)) continue;
      const bool native = thread.waiting_lock->kind == board::LockKind::NativeCondition;
      edge(self, thread_node(other), EdgeRelation::WaitsFor,
           thread.label() + " waits for a notification of " + awaited + ", which " + other.label() +
               (native ? " may give: it is blocked, and a native thread the board does not see may give it too"
                       : " may give: any live Python thread may, and this one is blocked"),
           true, std::string(native ? kNativeConditionWait : kNotificationWait));
    }
  }

  // A native lock names its holder itself (the interposer reads the lock's owner field and writes it
  // with the wait). Returns whether one was named.
  bool native_lock_holder(const WaitNode& node) {
    for (const ThreadFacts& waiter : facts_.threads) {
      if (!waiter.waiting_lock || !waiter.waiting_lock->native() || waiter.waiting_lock->id != node.handle) continue;
      const int holder_tid = waiter.waiting_lock->holder_tid;
      if (holder_tid == 0 || holder_tid == waiter.tid) continue;
      const ThreadFacts* holder = facts_.find(holder_tid);
      const std::string holder_id =
          holder != nullptr ? thread_node(*holder)
                            : graph_.add_node(WaitNode{"thread:" + std::to_string(holder_tid), NodeKind::thread,
                                                       "thread " + std::to_string(holder_tid), holder_tid, 0})
                                  .id;
      const std::string holder_label = holder != nullptr ? holder->label() : "thread " + std::to_string(holder_tid);
      edge(node.id, holder_id, EdgeRelation::HeldBy, node.label + " is held by " + holder_label, false,
           "board: the lock's owner, as its waiter read it");
      return true;
    }
    return false;
  }

  // A native lock the driver or the interpreter takes inside a call the board already shows (a driver
  // call, a wait for the GIL): that call's wait says what the thread waits for, in the model's terms.
  static bool waits_inside_its_call(const ThreadFacts& thread) {
    if (!thread.waiting_lock || !thread.waiting_lock->native()) return false;
    if (!thread.call && thread.gil.state != GilState::Waiting) return false;
    return !thread.waiting_lock_owner.empty();
  }

  // Blocked as far as the facts say: in a driver call, for a lock, for the GIL, or in a lock's frames.
  static bool waits_for_something(const ThreadFacts& thread) {
    return thread.call || thread.waiting_lock || thread.gil.state == GilState::Waiting ||
           thread.native_wait.kind == NativeWait::Kind::PythonLock ||
           thread.native_wait.kind == NativeWait::Kind::NativeLock;
  }

  std::vector<const WaitEdge*> incoming(const std::string& id) const {
    std::vector<const WaitEdge*> in;
    for (const WaitEdge& edge : graph_.edges()) {
      if (edge.to == id) in.push_back(&edge);
    }
    return in;
  }

  const Snapshot& snapshot_;
  const SnapshotFacts& facts_;
  const DriverCallBlocksPredicate& blocks_;
  WaitForGraph graph_;
  std::deque<std::string> unresolved_;
  std::map<std::string, std::uint64_t> stream_contexts_;
};

}  // namespace

std::string describe_host_function(const board::HostFunctionRecord& record) {
  std::string text = "host function " + (record.id != 0 ? "#" + std::to_string(record.id) : std::string("(no id)"));
  std::string details;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    details += (details.empty() ? "" : ", ") + part;
  };
  if (record.kind != board::HostFunctionKind::Unknown) add(board::to_string(record.kind));
  add(record.implementation);
  add(record.description);
  return details.empty() ? text : text + " (" + details + ")";
}

WaitForGraph build_wait_for_graph(const Snapshot& snapshot, const SnapshotFacts& facts,
                                  const DriverCallBlocksPredicate& blocks_while_host_function_runs) {
  return Builder(snapshot, facts, blocks_while_host_function_runs).build();
}

}  // namespace gilsan::watchdog

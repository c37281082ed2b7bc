// Random sequences of the entry points the forwarding driver wraps (host functions, stream callbacks,
// graph host nodes: add, set and get parameters, clone, child graphs, instantiate both ways, update,
// upload, launch, destroy; stream capture; user objects; events), made from a seed, through whatever
// "libcuda.so.1" the library path finds. It prints every call's result and, at each synchronization,
// which host functions ran since the last one: no handle or address, so that the same seeds print the
// same text on the bare simulated driver and through the forwarding driver in front of it (under
// `gilsan run --driver real --sanitize on`, where its wrappers are live). check_wrapper_sequences.py
// compares the two; ASan and UBSan builds check the wrappers' memory on the way.
//
// usage: gilsan_wrapper_sequences FIRST_SEED LAST_SEED OPERATIONS_PER_SEED
// An entry point the driver does not export is answered CUDA_ERROR_NOT_FOUND, as the forwarding driver
// answers one its driver behind lacks.
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

void* g_driver = nullptr;

template <typename Function>
Function find(const char* symbol) {
  return reinterpret_cast<Function>(::dlsym(g_driver, symbol));
}

// Calls `symbol` as a `type` if the driver has it, else answers CUDA_ERROR_NOT_FOUND. The arguments
// are evaluated either way, so that a sequence draws the same random numbers whichever driver answers.
template <typename Function, typename... Arguments>
CUresult call_if_found(Function function, Arguments... arguments) {
  return function != nullptr ? function(arguments...) : CUDA_ERROR_NOT_FOUND;
}
#define CALL(type, symbol, ...)                             \
  call_if_found(                                            \
      [] {                                                  \
        static const auto function = find<type>(symbol);    \
        return function;                                    \
      }(),                                                  \
      __VA_ARGS__)

// What ran: host functions append their tag, user-object destructors count.
std::mutex g_mutex;
std::vector<long> g_ran;
int g_destroyed_user_objects = 0;

void CUDA_CB host_function(void* tag) {
  std::lock_guard lock(g_mutex);
  g_ran.push_back(reinterpret_cast<long>(tag));
}

void CUDA_CB stream_callback(CUstream, CUresult status, void* tag) {
  std::lock_guard lock(g_mutex);
  g_ran.push_back(reinterpret_cast<long>(tag) * (status == CUDA_SUCCESS ? 1 : -1));
}

void CUDA_CB destroy_user_object(void*) {
  std::lock_guard lock(g_mutex);
  ++g_destroyed_user_objects;
}

struct Graph {
  CUgraph handle = nullptr;
  std::vector<CUgraphNode> host_nodes;  // nodes whose parameters the sequence may set
  std::vector<CUgraphNode> nodes;
};

struct State {
  std::vector<CUstream> streams;
  std::vector<Graph> graphs;
  std::vector<CUgraphExec> execs;
  std::vector<CUevent> events;
  int user_objects = 0;
  long next_tag = 1;
};

class Sequence {
 public:
  Sequence(unsigned seed) : random_(seed) {}

  void step() {
    switch (pick(20)) {
      case 0: stream_create(); break;
      case 1: stream_destroy(); break;
      case 2: case 3: launch_host_function(); break;
      case 4: add_stream_callback(); break;
      case 5: graph_create(); break;
      case 6: case 7: add_host_node(); break;
      case 8: set_host_node_params(); break;
      case 9: get_host_node_params(); break;
      case 10: clone_or_nest(); break;
      case 11: instantiate(); break;
      case 12: case 13: launch_graph(); break;
      case 14: update_or_set_exec_params(); break;
      case 15: destroy_graph_or_exec(); break;
      case 16: capture(); break;
      case 17: user_object(); break;
      case 18: event_round_trip(); break;
      case 19: synchronize(); break;
    }
  }

  void finish() {
    for (CUgraphExec exec : state_.execs) say("cuGraphExecDestroy", CALL(decltype(&cuGraphExecDestroy), "cuGraphExecDestroy", exec));
    for (Graph& graph : state_.graphs) say("cuGraphDestroy", CALL(decltype(&cuGraphDestroy), "cuGraphDestroy", graph.handle));
    for (CUevent event : state_.events) say("cuEventDestroy", CALL(decltype(&cuEventDestroy), "cuEventDestroy_v2", event));
    for (CUstream stream : state_.streams) say("cuStreamDestroy", CALL(decltype(&cuStreamDestroy), "cuStreamDestroy_v2", stream));
    synchronize();
    // A user object's destructor runs on a driver thread once its last owner is gone: wait for them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard lock(g_mutex);
        if (g_destroyed_user_objects == state_.user_objects) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard lock(g_mutex);
    std::printf("user objects made %d, destroyed %d\n", state_.user_objects, g_destroyed_user_objects);
    g_destroyed_user_objects = 0;
  }

 private:
  int pick(int count) { return std::uniform_int_distribution<int>(0, count - 1)(random_); }
  template <typename T>
  T* any(std::vector<T>& items) { return items.empty() ? nullptr : &items[pick(static_cast<int>(items.size()))]; }
  void* tag() { return reinterpret_cast<void*>(state_.next_tag++); }
  static void say(const char* what, CUresult result) { std::printf("%s %d\n", what, static_cast<int>(result)); }
  static CUDA_HOST_NODE_PARAMS host_params(void* tag) { return CUDA_HOST_NODE_PARAMS{&host_function, tag}; }

  void stream_create() {
    CUstream stream = nullptr;
    const CUresult result = CALL(decltype(&cuStreamCreate), "cuStreamCreate", &stream, CU_STREAM_NON_BLOCKING);
    say("cuStreamCreate", result);
    if (result == CUDA_SUCCESS) state_.streams.push_back(stream);
  }
  void stream_destroy() {  // host functions still pending on it run all the same
    if (state_.streams.size() < 2) return;
    const std::size_t index = static_cast<std::size_t>(pick(static_cast<int>(state_.streams.size())));
    say("cuStreamDestroy", CALL(decltype(&cuStreamDestroy), "cuStreamDestroy_v2", state_.streams[index]));
    state_.streams.erase(state_.streams.begin() + static_cast<long>(index));
  }
  void launch_host_function() {
    if (CUstream* stream = any(state_.streams))
      say("cuLaunchHostFunc", CALL(decltype(&cuLaunchHostFunc), "cuLaunchHostFunc", *stream, &host_function, tag()));
  }
  void add_stream_callback() {
    if (CUstream* stream = any(state_.streams))
      say("cuStreamAddCallback",
          CALL(decltype(&cuStreamAddCallback), "cuStreamAddCallback", *stream, &stream_callback, tag(), 0));
  }
  void graph_create() {
    Graph graph;
    const CUresult result = CALL(decltype(&cuGraphCreate), "cuGraphCreate", &graph.handle, 0);
    say("cuGraphCreate", result);
    if (result == CUDA_SUCCESS) state_.graphs.push_back(graph);
  }
  void add_host_node() {
    Graph* graph = any(state_.graphs);
    if (graph == nullptr) return;
    std::vector<CUgraphNode> dependencies;
    if (!graph->nodes.empty() && pick(2) == 0) dependencies.push_back(*any(graph->nodes));
    CUgraphNode node = nullptr;
    CUresult result;
    if (pick(3) == 0) {  // the generic form (CUDA 12.3's, with edge data)
      CUgraphNodeParams params{};
      params.type = CU_GRAPH_NODE_TYPE_HOST;
      params.host.fn = &host_function;
      params.host.userData = tag();
      result = CALL(decltype(&cuGraphAddNode), "cuGraphAddNode_v2", &node, graph->handle, dependencies.data(), nullptr,
                    dependencies.size(), &params);
      say("cuGraphAddNode", result);
    } else {
      const CUDA_HOST_NODE_PARAMS params = host_params(tag());
      result = CALL(decltype(&cuGraphAddHostNode), "cuGraphAddHostNode", &node, graph->handle, dependencies.data(),
                    dependencies.size(), &params);
      say("cuGraphAddHostNode", result);
    }
    if (result != CUDA_SUCCESS) return;
    graph->nodes.push_back(node);
    graph->host_nodes.push_back(node);
  }
  void set_host_node_params() {
    Graph* graph = any(state_.graphs);
    if (graph == nullptr || graph->host_nodes.empty()) return;
    CUgraphNode node = *any(graph->host_nodes);
    if (pick(2) == 0) {
      const CUDA_HOST_NODE_PARAMS params = host_params(tag());
      say("cuGraphHostNodeSetParams", CALL(decltype(&cuGraphHostNodeSetParams), "cuGraphHostNodeSetParams", node, &params));
    } else {
      CUgraphNodeParams params{};
      params.type = CU_GRAPH_NODE_TYPE_HOST;
      params.host.fn = &host_function;
      params.host.userData = tag();
      say("cuGraphNodeSetParams", CALL(decltype(&cuGraphNodeSetParams), "cuGraphNodeSetParams", node, &params));
    }
  }
  void get_host_node_params() {  // the application's own function comes back, never a wrapper's
    Graph* graph = any(state_.graphs);
    if (graph == nullptr || graph->host_nodes.empty()) return;
    CUDA_HOST_NODE_PARAMS params{};
    const CUresult result =
        CALL(decltype(&cuGraphHostNodeGetParams), "cuGraphHostNodeGetParams", *any(graph->host_nodes), &params);
    std::printf("cuGraphHostNodeGetParams %d %s tag %ld\n", static_cast<int>(result),
                result != CUDA_SUCCESS ? "-" : params.fn == &host_function ? "own-function" : "OTHER-FUNCTION",
                result != CUDA_SUCCESS ? 0L : reinterpret_cast<long>(params.userData));
  }
  void clone_or_nest() {
    Graph* graph = any(state_.graphs);
    if (graph == nullptr) return;
    if (pick(2) == 0) {
      Graph clone;
      const CUresult result = CALL(decltype(&cuGraphClone), "cuGraphClone", &clone.handle, graph->handle);
      say("cuGraphClone", result);
      if (result == CUDA_SUCCESS) state_.graphs.push_back(clone);  // its nodes' handles are its own
      return;
    }
    Graph* parent = any(state_.graphs);
    if (parent == graph) return;
    CUgraphNode node = nullptr;
    const CUresult result =
        CALL(decltype(&cuGraphAddChildGraphNode), "cuGraphAddChildGraphNode", &node, parent->handle, nullptr, 0, graph->handle);
    say("cuGraphAddChildGraphNode", result);
    if (result == CUDA_SUCCESS) parent->nodes.push_back(node);
  }
  void instantiate() {
    Graph* graph = any(state_.graphs);
    if (graph == nullptr) return;
    CUgraphExec exec = nullptr;
    CUresult result;
    if (pick(2) == 0) {
      result = CALL(decltype(&cuGraphInstantiateWithFlags), "cuGraphInstantiateWithFlags", &exec, graph->handle, 0);
      say("cuGraphInstantiateWithFlags", result);
    } else {
      CUDA_GRAPH_INSTANTIATE_PARAMS params{};
      result = CALL(decltype(&cuGraphInstantiateWithParams), "cuGraphInstantiateWithParams", &exec, graph->handle, &params);
      say("cuGraphInstantiateWithParams", result);
    }
    if (result == CUDA_SUCCESS) state_.execs.push_back(exec);
  }
  void launch_graph() {
    CUgraphExec* exec = any(state_.execs);
    CUstream* stream = any(state_.streams);
    if (exec == nullptr || stream == nullptr) return;
    if (pick(4) == 0) say("cuGraphUpload", CALL(decltype(&cuGraphUpload), "cuGraphUpload", *exec, *stream));
    say("cuGraphLaunch", CALL(decltype(&cuGraphLaunch), "cuGraphLaunch", *exec, *stream));
  }
  void update_or_set_exec_params() {
    CUgraphExec* exec = any(state_.execs);
    Graph* graph = any(state_.graphs);
    if (exec == nullptr || graph == nullptr) return;
    if (pick(2) == 0) {
      CUgraphExecUpdateResultInfo info{};
      say("cuGraphExecUpdate", CALL(decltype(&cuGraphExecUpdate), "cuGraphExecUpdate_v2", *exec, graph->handle, &info));
    } else if (!graph->host_nodes.empty()) {
      const CUDA_HOST_NODE_PARAMS params = host_params(tag());
      say("cuGraphExecHostNodeSetParams", CALL(decltype(&cuGraphExecHostNodeSetParams), "cuGraphExecHostNodeSetParams",
                                               *exec, *any(graph->host_nodes), &params));
    }
  }
  void destroy_graph_or_exec() {  // launches still pending run all the same
    if (pick(2) == 0 && !state_.execs.empty()) {
      const std::size_t index = static_cast<std::size_t>(pick(static_cast<int>(state_.execs.size())));
      say("cuGraphExecDestroy", CALL(decltype(&cuGraphExecDestroy), "cuGraphExecDestroy", state_.execs[index]));
      state_.execs.erase(state_.execs.begin() + static_cast<long>(index));
    } else if (!state_.graphs.empty()) {
      const std::size_t index = static_cast<std::size_t>(pick(static_cast<int>(state_.graphs.size())));
      say("cuGraphDestroy", CALL(decltype(&cuGraphDestroy), "cuGraphDestroy", state_.graphs[index].handle));
      state_.graphs.erase(state_.graphs.begin() + static_cast<long>(index));
    }
  }
  void capture() {  // launches into a capture become host nodes of the captured graph
    CUstream* stream = any(state_.streams);
    if (stream == nullptr) return;
    CUresult result = CALL(decltype(&cuStreamBeginCapture), "cuStreamBeginCapture_v2", *stream,
                           CU_STREAM_CAPTURE_MODE_RELAXED);
    say("cuStreamBeginCapture", result);
    if (result != CUDA_SUCCESS) return;
    for (int i = pick(3) + 1; i > 0; --i)
      say("cuLaunchHostFunc", CALL(decltype(&cuLaunchHostFunc), "cuLaunchHostFunc", *stream, &host_function, tag()));
    Graph graph;
    result = CALL(decltype(&cuStreamEndCapture), "cuStreamEndCapture", *stream, &graph.handle);
    say("cuStreamEndCapture", result);
    if (result == CUDA_SUCCESS) state_.graphs.push_back(graph);
  }
  void user_object() {
    Graph* graph = any(state_.graphs);
    if (graph == nullptr) return;
    CUuserObject object = nullptr;
    CUresult result = CALL(decltype(&cuUserObjectCreate), "cuUserObjectCreate", &object, nullptr, &destroy_user_object, 1,
                           CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    say("cuUserObjectCreate", result);
    if (result != CUDA_SUCCESS) return;
    ++state_.user_objects;
    result = CALL(decltype(&cuGraphRetainUserObject), "cuGraphRetainUserObject", graph->handle, object, 1,
                  CU_GRAPH_USER_OBJECT_MOVE);
    say("cuGraphRetainUserObject", result);
    if (result != CUDA_SUCCESS) say("cuUserObjectRelease", CALL(decltype(&cuUserObjectRelease), "cuUserObjectRelease", object, 1));
  }
  void event_round_trip() {
    CUstream* stream = any(state_.streams);
    if (stream == nullptr) return;
    CUevent event = nullptr;
    CUresult result = CALL(decltype(&cuEventCreate), "cuEventCreate", &event, CU_EVENT_DEFAULT);
    say("cuEventCreate", result);
    if (result != CUDA_SUCCESS) return;
    say("cuEventRecord", CALL(decltype(&cuEventRecord), "cuEventRecord", event, *stream));
    if (pick(2) == 0) {
      say("cuEventSynchronize", CALL(decltype(&cuEventSynchronize), "cuEventSynchronize", event));
      say("cuEventDestroy", CALL(decltype(&cuEventDestroy), "cuEventDestroy_v2", event));
    } else {
      state_.events.push_back(event);  // destroyed at the end, maybe with work still pending
    }
  }
  void synchronize() {
    say("cuCtxSynchronize", call_if_found(find<decltype(&cuCtxSynchronize)>("cuCtxSynchronize")));
    std::lock_guard lock(g_mutex);
    // Which host functions ran (each tag with its count): streams run concurrently, so their order
    // across streams is the driver's to choose; the same work must have run.
    std::map<long, int> counts;
    for (long ran : g_ran) ++counts[ran];
    std::printf("ran:");
    for (const auto& [ran, count] : counts) std::printf(" %ld*%d", ran, count);
    std::printf("\n");
    g_ran.clear();
  }

  std::mt19937 random_;
  State state_;
};

#undef CALL

int fail(const char* what, CUresult result) {
  std::fprintf(stderr, "gilsan_wrapper_sequences: %s failed: %d\n", what, static_cast<int>(result));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gilsan_wrapper_sequences FIRST_SEED LAST_SEED OPERATIONS_PER_SEED\n");
    return 2;
  }
  const unsigned first = static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10));
  const unsigned last = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  const int operations = std::atoi(argv[3]);
  g_driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (g_driver == nullptr) {
    std::fprintf(stderr, "gilsan_wrapper_sequences: %s\n", ::dlerror());
    return 2;
  }
  const auto init = find<decltype(&cuInit)>("cuInit");
  const auto device_get = find<decltype(&cuDeviceGet)>("cuDeviceGet");
  const auto retain = find<decltype(&cuDevicePrimaryCtxRetain)>("cuDevicePrimaryCtxRetain");
  const auto set_current = find<decltype(&cuCtxSetCurrent)>("cuCtxSetCurrent");
  CUdevice device = 0;
  CUcontext context = nullptr;
  if (CUresult result = init(0); result != CUDA_SUCCESS) return fail("cuInit", result);
  if (CUresult result = device_get(&device, 0); result != CUDA_SUCCESS) return fail("cuDeviceGet", result);
  if (CUresult result = retain(&context, device); result != CUDA_SUCCESS) return fail("cuDevicePrimaryCtxRetain", result);
  if (CUresult result = set_current(context); result != CUDA_SUCCESS) return fail("cuCtxSetCurrent", result);
  for (unsigned seed = first; seed <= last; ++seed) {
    std::printf("seed %u\n", seed);
    Sequence sequence(seed);
    for (int i = 0; i < operations; ++i) sequence.step();
    sequence.finish();
    std::fflush(stdout);
  }
  return 0;
}

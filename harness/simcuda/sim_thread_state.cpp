#include "harness/simcuda/sim_thread_state.h"

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <unordered_set>

namespace gilsan::sim {
namespace {

// Every live thread's state, also reachable from here. LeakSanitizer does not scan pthread-specific
// slots of threads still running at exit (the sim's callback and destructor threads run forever), so
// without this registry their states would be reported as leaks.
struct LiveStates {
  std::mutex mutex;
  std::unordered_set<ThreadState*> states;
};

LiveStates& live_states() {
  static auto* live = new LiveStates();  // outlives every thread, including those ending after exit
  return *live;
}

void end_of_thread(void* data) {
  auto* state = static_cast<ThreadState*>(data);
  if (!state->per_thread_streams.empty()) retire_per_thread_streams(*state);
  {
    LiveStates& live = live_states();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.states.erase(state);
  }
  delete state;
}

pthread_key_t state_key() {
  static const pthread_key_t key = [] {
    pthread_key_t created;
    pthread_key_create(&created, &end_of_thread);
    return created;
  }();
  return key;
}

}  // namespace

ThreadState& this_thread_state() {
  pthread_key_t key = state_key();
  auto* state = static_cast<ThreadState*>(pthread_getspecific(key));
  if (state == nullptr) {
    static std::atomic<std::uint64_t> next_token{1};
    state = new ThreadState();
    state->token = next_token.fetch_add(1);
    {
      LiveStates& live = live_states();
      std::lock_guard<std::mutex> lock(live.mutex);
      live.states.insert(state);
    }
    pthread_setspecific(key, state);
  }
  return *state;
}

}  // namespace gilsan::sim

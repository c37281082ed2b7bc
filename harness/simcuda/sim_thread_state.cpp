#include "harness/simcuda/sim_thread_state.h"

#include <pthread.h>

#include <atomic>

namespace gilsan::sim {
namespace {

void end_of_thread(void* data) {
  auto* state = static_cast<ThreadState*>(data);
  if (!state->per_thread_streams.empty()) retire_per_thread_streams(*state);
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
    pthread_setspecific(key, state);
  }
  return *state;
}

}  // namespace gilsan::sim

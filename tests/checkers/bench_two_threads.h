// The two-thread shape of a host function, for the sanitizer benchmarks: this thread launches (the
// application's), another runs what was launched in order (the driver's callback thread), through a
// bounded queue, so that the two contend as in a real process. Times the benchmark's iterations until
// the last launched item has run, as a workload's synchronize does.
#pragma once

#include <benchmark/benchmark.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>

namespace gilsan::checkers::testing {

// `launch(n)` makes the n-th item (n from 1) on this thread; `run(item)` runs it on the other.
template <typename Item, typename Launch, typename Run>
void launch_here_run_there(benchmark::State& state, Launch launch, Run run) {
  constexpr std::size_t kSlots = 4096;
  std::array<Item, kSlots> ring{};
  std::atomic<std::uint64_t> produced{0};
  std::atomic<std::uint64_t> consumed{0};
  std::atomic<bool> done{false};
  std::thread callback_thread([&] {
    std::uint64_t next = 0;
    for (;;) {
      const std::uint64_t available = produced.load(std::memory_order_acquire);
      if (next == available) {
        if (done.load(std::memory_order_acquire) && next == produced.load(std::memory_order_acquire)) return;
        std::this_thread::yield();
        continue;
      }
      for (; next < available; ++next) run(ring[next % kSlots]);
      consumed.store(next, std::memory_order_release);
    }
  });
  std::uint64_t sent = 0;
  for (auto _ : state) {
    while (sent - consumed.load(std::memory_order_acquire) >= kSlots) std::this_thread::yield();
    ring[sent % kSlots] = launch(sent + 1);
    produced.store(++sent, std::memory_order_release);
  }
  while (consumed.load(std::memory_order_acquire) != sent) std::this_thread::yield();
  done.store(true, std::memory_order_release);
  callback_thread.join();
  state.SetItemsProcessed(state.iterations());
}

}  // namespace gilsan::checkers::testing

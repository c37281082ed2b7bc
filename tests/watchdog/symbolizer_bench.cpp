// What file:line and inlined frames cost the watchdog (not a test: run it, read the ratios). One
// captured stack of this process (our code with DWARF, then the benchmark library and libc without),
// named by the symbol tables alone and with SourceLines, each with the files already read (a watchdog
// that sampled before) and from a fresh Symbolizer (the first report of a run reads every file).
#include <benchmark/benchmark.h>
#include <execinfo.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "harness/watchdog/symbolizer.h"

namespace gilsan::watchdog {
namespace {

__attribute__((noinline)) std::vector<std::uint64_t> stack_at_depth(int depth) {
  if (depth > 0) {
    auto frames = stack_at_depth(depth - 1);
    asm volatile("" ::: "memory");  // no tail call: each level keeps a frame
    return frames;
  }
  void* addresses[32];
  const int count = ::backtrace(addresses, 32);
  std::vector<std::uint64_t> frames;
  for (int i = 0; i < count; ++i) frames.push_back(reinterpret_cast<std::uintptr_t>(addresses[i]));
  return frames;
}

const std::vector<std::uint64_t>& sample_stack() {
  static const std::vector<std::uint64_t> frames = stack_at_depth(8);
  return frames;
}

std::size_t names_only(const Symbolizer& symbolizer) {
  std::size_t named = 0;
  const auto& frames = sample_stack();
  for (std::size_t i = 0; i < frames.size(); ++i) named += symbolizer.symbolize(frames[i], i > 0).symbol.empty() ? 0 : 1;
  return named;
}

std::size_t with_source_lines(const Symbolizer& symbolizer) {
  return symbolizer.symbolize_stack(sample_stack()).size();
}

void BM_NamesOnlyWarm(benchmark::State& state) {
  Symbolizer symbolizer = Symbolizer::for_process(::getpid());
  names_only(symbolizer);
  for (auto _ : state) benchmark::DoNotOptimize(names_only(symbolizer));
  state.counters["frames"] = static_cast<double>(sample_stack().size());
}

void BM_WithSourceLinesWarm(benchmark::State& state) {
  Symbolizer symbolizer = Symbolizer::for_process(::getpid());
  with_source_lines(symbolizer);
  std::size_t frames = 0;
  for (auto _ : state) benchmark::DoNotOptimize(frames = with_source_lines(symbolizer));
  state.counters["frames"] = static_cast<double>(frames);  // more than captured: inlined calls
}

void BM_NamesOnlyCold(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(names_only(Symbolizer::for_process(::getpid())));
}

void BM_WithSourceLinesCold(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(with_source_lines(Symbolizer::for_process(::getpid())));
}

BENCHMARK(BM_NamesOnlyWarm);
BENCHMARK(BM_WithSourceLinesWarm);
BENCHMARK(BM_NamesOnlyCold)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WithSourceLinesCold)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gilsan::watchdog

BENCHMARK_MAIN();

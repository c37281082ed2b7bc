#include "harness/probe/probe_timeouts.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define GILSAN_PROBE_KNOWS_VALGRIND 1
#endif

namespace gilsan::probe {
namespace {

Milliseconds scaled(Milliseconds value, double scale) {
  return Milliseconds(static_cast<long long>(std::ceil(static_cast<double>(value.count()) * scale)));
}

bool running_on_valgrind() {
#ifdef GILSAN_PROBE_KNOWS_VALGRIND
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

}  // namespace

ProbeTimeouts default_timeouts(DriverKind driver, double scale) {
  ProbeTimeouts t;
  if (driver == DriverKind::Real) {
    // A real driver's slow calls (context creation, PTX JIT, pinning memory) take up to about a
    // second on an H200; the per-case stretch covers slower ones.
    t.outside_hold = Milliseconds(2000);
    t.inside_hang = Milliseconds(5000);
    t.enqueue_stall = Milliseconds(2000);
    t.concurrency_window = Milliseconds(1000);
    t.case_limit = Milliseconds(60000);
  }
  t.outside_hold = scaled(t.outside_hold, scale);
  t.inside_hang = scaled(t.inside_hang, scale);
  t.enqueue_stall = scaled(t.enqueue_stall, scale);
  t.concurrency_window = scaled(t.concurrency_window, scale);
  t.case_limit = scaled(t.case_limit, scale);
  t.gate_work = scaled(t.gate_work, scale);
  return t;
}

double time_scale_from_environment() {
  double scale = 1.0;
  if (const char* text = std::getenv(kTimeScaleVariable); text != nullptr && *text != '\0') {
    char* end = nullptr;
    scale = std::strtod(text, &end);
    if (*end != '\0' || !(scale > 0.0) || !std::isfinite(scale))
      throw std::invalid_argument(std::string(kTimeScaleVariable) + "='" + text + "': expected a positive number");
  }
  if (running_on_valgrind()) scale *= 20.0;
  return scale;
}

Milliseconds stretched(Milliseconds floor, std::chrono::microseconds unobstructed, int factor) {
  auto stretched_wait = std::chrono::ceil<Milliseconds>(unobstructed * factor);
  return stretched_wait > floor ? stretched_wait : floor;
}

std::string describe(const ProbeTimeouts& t) {
  return "outside hold " + std::to_string(t.outside_hold.count()) + " ms, inside hang " +
         std::to_string(t.inside_hang.count()) + " ms, enqueue stall " + std::to_string(t.enqueue_stall.count()) +
         " ms, concurrency window " + std::to_string(t.concurrency_window.count()) + " ms, case limit " +
         std::to_string(t.case_limit.count()) + " ms";
}

}  // namespace gilsan::probe

// The one entry point of the forwarding driver that the real driver does not have: the simulated
// driver's gilsanSimSetObserver, so that one observer (and one source of the sanitizer) watches either.
#include "harness/driverhooks/observer_registry.h"

extern "C" __attribute__((visibility("default"))) CUresult gilsanSimSetObserver(const GilsanSimObserver* observer) {
  return gilsan::driverhooks::install_observer(observer);
}

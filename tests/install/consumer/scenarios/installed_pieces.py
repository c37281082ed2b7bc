# gilsan: expect = pass
# gilsan: drivers = sim
# gilsan: description = the installed gilsan runs its own simulated driver and profile
"""Run from a moved install tree: the driver and profile the child uses must come from that tree."""
import os

import gilsan

prefix = os.path.realpath(os.environ["GILSAN_EXPECTED_PREFIX"]) + os.sep
info = gilsan.driver()
# The child opens the run's libcuda.so.1 link, which leads to the library the runner chose.
library = os.path.realpath(info.library)
assert library.startswith(prefix), f"driver {info.library} ({library}) is not under {prefix}"
stream = gilsan.Stream()
ran = []
gilsan.host_launch(stream, lambda: ran.append(True))
stream.synchronize()
assert ran == [True]

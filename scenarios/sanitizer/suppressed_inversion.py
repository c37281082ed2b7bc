# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: suppressions = suppressed_inversion.supp
# gilsan: description = the finished-callback inversion, suppressed by a suppression file
"""A suppression file silences a known finding.

The same order as finished_callback_inversion.py; suppressed_inversion.supp suppresses the cycle and
the GIL-held synchronize by the driver entry point, so the run passes. The file also holds a line that
matches nothing, which the sanitizer lists as an unused suppression in its report.
"""
import threading

import gilsan

stream = gilsan.Stream()
ran = threading.Event()
gilsan.host_launch(stream, ran.set)
assert ran.wait(timeout=10), "the host function did not run"
stream.synchronize()
stream.synchronize(hold_gil=True)
print("suppressed")

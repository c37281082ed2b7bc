# gilsan: expect = pass
# gilsan: timeout = 20
# gilsan: description = the scenario deletes every temporary folder the runner made for it (driver, sanitizer report)
"""The runner's own files in TMPDIR (the folder with the simulated libcuda.so.1, the sanitizer's report
folder) are removed by the scenario while it runs: the runner must still end the run cleanly, with the
outcome the scenario earned, and leave nothing behind."""
import os
import shutil
import tempfile

import gilsan

stream = gilsan.Stream()
gilsan.host_launch(stream, lambda: None)
stream.synchronize()
root = tempfile.gettempdir()
for name in os.listdir(root):
    if name.startswith(("gilsan-driver-", "gilsan-sanitizer-")):
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
print("deleted the runner's temporary folders")

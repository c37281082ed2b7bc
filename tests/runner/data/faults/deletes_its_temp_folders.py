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
# Only this run's own folders, found through the environment the runner gave it: the suite runs other
# scenarios beside this one in the same TMPDIR, and their folders are not this scenario's to delete.
root = os.path.realpath(tempfile.gettempdir())
own = [os.environ.get("GILSAN_SANITIZER_TEXT", ""), os.environ.get("GILSAN_SIM_LIBRARY", "")]
deleted = 0
for path in own:
    folder = os.path.dirname(path)
    name = os.path.basename(folder)
    if os.path.realpath(os.path.dirname(folder)) == root and name.startswith(("gilsan-driver-", "gilsan-sanitizer-")):
        shutil.rmtree(folder, ignore_errors=True)
        deleted += 1
if deleted == 0:
    raise SystemExit("found none of the runner's temporary folders in this run's environment")
print("deleted the runner's temporary folders")

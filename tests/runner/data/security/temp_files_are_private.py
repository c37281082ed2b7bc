# gilsan: expect = pass
# gilsan: description = the runner's files in TMPDIR (board, driver folder, sanitizer folder) are the user's alone
"""Run with a TMPDIR of its own (the test gives one), so that what it finds there is this run's: every
folder the runner made is mode 0700, every file in them is readable and writable by its owner only, and
nothing in them is a symbolic link except the driver folder's libcuda.so.1, which the runner made."""
import os
import stat
import tempfile

root = tempfile.gettempdir()
made = sorted(name for name in os.listdir(root) if name.startswith("gilsan-"))
kinds = {name.split("-")[1] for name in made}
assert {"board", "driver", "sanitizer"} <= kinds, f"expected the board, driver and sanitizer folders in {root}: {made}"
for name in made:
    folder = os.path.join(root, name)
    mode = stat.S_IMODE(os.lstat(folder).st_mode)
    assert stat.S_ISDIR(os.lstat(folder).st_mode) and mode == 0o700, f"{name}: mode {oct(mode)}, expected 0o700"
    for entry in os.listdir(folder):
        status = os.lstat(os.path.join(folder, entry))
        if stat.S_ISLNK(status.st_mode):
            assert (name.startswith("gilsan-driver-") and entry == "libcuda.so.1"), f"{name}/{entry} is a symbolic link"
            continue
        assert stat.S_IMODE(status.st_mode) & 0o077 == 0, f"{name}/{entry}: mode {oct(stat.S_IMODE(status.st_mode))}"
print(f"{len(made)} folders, all private")

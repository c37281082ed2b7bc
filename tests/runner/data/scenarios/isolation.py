# gilsan: expect = pass
# gilsan: description = the embedded interpreter is isolated from the caller's Python setup
import os
import sys

import _helper

here = os.path.dirname(os.path.abspath(__file__))
assert sys.argv == [__file__], sys.argv
assert __name__ == "__main__"
assert sys.path[0] == here, sys.path
# The caller's PYTHONPATH (the ctest sets one) and the system's site-packages are not on sys.path.
assert not any("gilsan-caller-pythonpath" in entry for entry in sys.path), sys.path
assert not any(entry.endswith(("site-packages", "dist-packages")) for entry in sys.path), sys.path
assert sys.flags.isolated == 1 and sys.flags.no_user_site == 1, sys.flags
assert sys.flags.utf8_mode == 1 and sys.dont_write_bytecode, sys.flags
print(_helper.GREETING)

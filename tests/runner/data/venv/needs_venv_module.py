# gilsan: expect = pass
# gilsan: needs = gilsan_venv_module
# gilsan: description = imports modules that only the --python-env virtualenv has
import sys

import gilsan_venv_module
import gilsan_pth_module  # found through a .pth file in the virtualenv's site-packages

assert sys.prefix != sys.base_prefix, (sys.prefix, sys.base_prefix)
print(gilsan_venv_module.NAME, gilsan_pth_module.NAME)

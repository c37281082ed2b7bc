# gilsan: expect = pass
# gilsan: needs = gilsan_no_such_module_anywhere
# gilsan: description = skipped: its need is not installed
import gilsan_no_such_module_anywhere  # noqa: F401

# gilsan: expect = pass
# gilsan: implementations = reference, _test_adapters:Fake
# gilsan: expect._test_adapters:Fake = exception:LookupError
# gilsan: description = one implementation's own expectation (expect.IMPL)
import gilsan_impl

if gilsan_impl.current().name == "test-fake":
    raise LookupError("what this scenario expects of the fake adapter")

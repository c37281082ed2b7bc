"""Adapters of one's own for the runner's tests (named on the command line as _test_adapters:Fake):
no CUDA at all, so that the tests check the suite's bookkeeping, not an implementation."""
from gilsan_impl import Implementation
from gilsan_impl.base import Stream


class Fake(Implementation):
    """Calls the callable at once: enough for scenarios that only check the runner."""

    name = "test-fake"
    capabilities = frozenset({"stream-launch"})
    lacks = {"capture": "this test adapter makes no graphs"}

    def new_stream(self, device=0):
        return Stream(object(), 0)

    def synchronize(self, stream):
        pass

    def launch(self, stream, fn, *args, **kwargs):
        fn(*args, **kwargs)


class NotAnAdapter:
    """Not an Implementation: naming it is a mistake the suite reports."""

# gilsan: expect = unraisable:RuntimeError
# gilsan: description = an exception in __del__ cannot be raised and goes to sys.unraisablehook
class RaisesWhenCollected:
    def __del__(self):
        raise RuntimeError("raised in __del__")


holder = RaisesWhenCollected()
del holder
print("the scenario carried on")

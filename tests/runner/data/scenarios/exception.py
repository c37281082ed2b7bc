# gilsan: expect = exception:ValueError
# gilsan: description = an uncaught exception ends the scenario
def fail():
    raise ValueError("the value is bad")


fail()

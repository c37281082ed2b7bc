# gilsan: expect = pass
# gilsan: description = its outcome does not match its expectation
raise KeyError("unexpected")

# gilsan: expect = pass
# gilsan timeout = 10
print("never runs: the colon after gilsan is missing, so the timeout would be lost")

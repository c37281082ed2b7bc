# gilsan: expect = pass
# gilsan: drivers = sim
# gilsan: expects = timeout
print("never runs")

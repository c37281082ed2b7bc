# gilsan: expect = pass
# gilsan: timeout = 5
# gilsan: timeout = 6
print("never runs")

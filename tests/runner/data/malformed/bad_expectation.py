# gilsan: expect = deadlock:gil-inversion
print("never runs")

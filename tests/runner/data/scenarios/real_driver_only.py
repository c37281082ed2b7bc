# gilsan: expect = pass
# gilsan: drivers = real
# gilsan: description = skipped unless the run uses the real driver
print("runs on the real driver only")

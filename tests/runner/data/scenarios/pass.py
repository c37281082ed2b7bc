# gilsan: expect = pass
# gilsan: description = prints a line and ends normally
print("hello from a passing scenario")

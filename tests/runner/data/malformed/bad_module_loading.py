# gilsan: expect = pass
# gilsan: module_loading = on
print("not reached: the header is refused")

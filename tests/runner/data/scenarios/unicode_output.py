# gilsan: expect = pass
# gilsan: description = non-ASCII output works whatever the caller's locale
print("h\u00e9llo \u4e16\u754c \u2713")

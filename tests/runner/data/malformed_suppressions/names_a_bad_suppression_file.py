# gilsan: expect = pass
# gilsan: suppressions = unknown_checker.supp
"""A scenario whose suppression file has a bad line: one line naming both files and the line, before
anything runs."""
print("never printed")

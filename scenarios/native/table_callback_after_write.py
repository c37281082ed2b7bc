# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fixed twin: the C library calls back after its write is done
"""`table_write_callback_inversion.py` fixed: the callback runs once the write is done and the rwlock
released, so the host function reads the table at once.
"""
import gilsan

from _native_library import CALLBACK, LIBRARY

stream = gilsan.Stream()
rows = []


def read_the_table():
    rows.append(LIBRARY.table_row_count())


def after_writing():
    gilsan.host_launch(stream, read_the_table)
    stream.synchronize()


callback = CALLBACK(after_writing)
LIBRARY.table_call_after_writing(callback)
assert rows == [1], rows
print("the host function read the table:", rows)

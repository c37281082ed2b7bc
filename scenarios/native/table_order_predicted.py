# gilsan: expect = report:lock-order-cycle
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a host function read a C library's table (its rwlock) and finished; later the library calls back writing it and the callback synchronizes
"""The inversion of `table_write_callback_inversion.py`, predicted on a run that does not hang.

A host function reads the C library's table (its rwlock, taken to read); the main thread synchronizes,
so the host function has run. Then the library calls back into Python while it writes the table (the
rwlock taken to write), and the callback synchronizes the same stream, empty now. Had the host function
still been queued, its read would wait for the writer, who waits for the stream. The sanitizer reports
"rwlock -> completion of the stream -> rwlock" on this run.
"""
import gilsan

from _native_library import CALLBACK, LIBRARY

stream = gilsan.Stream()
rows = []


def read_the_table():
    rows.append(LIBRARY.table_row_count())


gilsan.host_launch(stream, read_the_table)
stream.synchronize()  # the host function has read the table
assert rows, "the host function did not run"


def while_writing():
    stream.synchronize()  # nothing is pending now; with a host function queued, this would hang


callback = CALLBACK(while_writing)
LIBRARY.table_call_writing(callback)
print("no hang on this run")

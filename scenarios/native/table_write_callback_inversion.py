# gilsan: expect = deadlock:user-lock-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 5
# gilsan: description = a C library's rwlock, held to write around a callback that synchronizes; a host function reads
"""The rwlock form of `registry_callback_inversion.py`: the library holds its table's rwlock to write
while it calls back; the callback synchronizes a stream whose host function reads the table, which
needs the rwlock to read. The holder is the writer, which glibc's rwlock names. The fix:
`table_callback_after_write.py`.
"""
import gilsan

from _native_library import CALLBACK, LIBRARY

stream = gilsan.Stream()


def read_the_table():
    LIBRARY.table_row_count()  # waits to read while the main thread writes
    print("not reached: the main thread holds the table's rwlock to write")


def while_writing():
    gilsan.host_launch(stream, read_the_table)
    stream.synchronize()


callback = CALLBACK(while_writing)
LIBRARY.table_call_writing(callback)
print("not reached")

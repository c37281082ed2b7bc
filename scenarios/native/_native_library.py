"""The C library of scenarios/native (native_library.c), loaded with ctypes: its calls release the GIL,
and a CALLBACK made from a Python function takes the GIL again when the library calls it.

`gilsan run` and `gilsan suite` name the library's path in GILSAN_NATIVE_SCENARIO_LIBRARY; run as a
plain script, a scenario needs that variable set (the build's scenarios/libgilsan_native_scenario.so).
"""
import ctypes
import os
import sys

PATH = os.environ.get("GILSAN_NATIVE_SCENARIO_LIBRARY", "")
if not PATH or not os.path.exists(PATH):
    sys.exit("scenarios/native: GILSAN_NATIVE_SCENARIO_LIBRARY does not name the scenarios' C library "
             f"({PATH or 'unset'}); gilsan run sets it, or point it at the build's libgilsan_native_scenario.so")

CALLBACK = ctypes.CFUNCTYPE(None)
LIBRARY = ctypes.CDLL(PATH)
for name in ("registry_call_locked", "registry_call_unlocked", "table_call_writing", "table_call_after_writing"):
    getattr(LIBRARY, name).argtypes = [CALLBACK]
    getattr(LIBRARY, name).restype = None
for name in ("registry_count", "table_row_count"):
    getattr(LIBRARY, name).argtypes = []
    getattr(LIBRARY, name).restype = ctypes.c_long
for name in ("gate_wait", "gate_open"):
    getattr(LIBRARY, name).argtypes = []
    getattr(LIBRARY, name).restype = None
for name in ("registry_call_locked_announced", "registry_call_unlocked_announced"):
    getattr(LIBRARY, name).argtypes = [CALLBACK]
    getattr(LIBRARY, name).restype = None
LIBRARY.registry_was_announced.argtypes = []
LIBRARY.registry_was_announced.restype = ctypes.c_int
# The same library, its calls made with the GIL held (ctypes.PyDLL): a C extension that does not let
# the GIL go around its own locking.
HOLDING_THE_GIL = ctypes.PyDLL(PATH)
HOLDING_THE_GIL.registry_count_announced.argtypes = []
HOLDING_THE_GIL.registry_count_announced.restype = ctypes.c_long

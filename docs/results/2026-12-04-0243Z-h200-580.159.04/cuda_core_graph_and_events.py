import functools, sys
from cuda.core import Device
d = Device(); d.set_current()
s = d.create_stream()
print("stream", s, s.priority if hasattr(s, "priority") else None)
seen = []
b = s.create_graph_builder()
b.begin_building()
b.callback(functools.partial(seen.append, 1))
g = b.end_building().complete()
for _ in range(5): g.launch(s)
s.sync()
print("seen", seen)
g.close()
e = d.create_event()
s.record(e); e.sync(); print("event done", e.is_done)
s2 = d.create_stream(); s2.wait(e); s2.wait(s); s2.sync()
print("ok")

import functools
from cuda.core import Device
from cuda.core.graph import GraphDefinition
d = Device(); d.set_current()
s = d.create_stream()
seen = []
definition = GraphDefinition()
definition.callback(functools.partial(seen.append, 2))
g = definition.instantiate()
for _ in range(3): g.launch(s)
s.sync()
print("seen", seen)
g.close()

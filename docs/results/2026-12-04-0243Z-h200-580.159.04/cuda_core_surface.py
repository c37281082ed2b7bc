from cuda.core import Device, Stream
d = Device(); d.set_current()
s = d.create_stream()
checks = {
  "stream.device": lambda: s.device,
  "stream.context": lambda: s.context,
  "stream.is_nonblocking": lambda: s.is_nonblocking,
  "stream.priority(own)": lambda: s.priority,
  "borrowed.priority": lambda: Stream.from_handle(int(s.handle)).priority,
  "borrowed.is_nonblocking": lambda: Stream.from_handle(int(s.handle)).is_nonblocking,
  "device.sync": lambda: d.sync(),
  "device.compute_capability": lambda: d.compute_capability,
  "device.name": lambda: d.name,
  "device.uuid": lambda: d.uuid,
  "default_stream.sync": lambda: d.default_stream.sync(),
  "event elapsed": lambda: (lambda e1, e2: (e2.sync(), e2 - e1))(s.record(options={"enable_timing": True}), s.record(options={"enable_timing": True})),
  "event.device": lambda: d.create_event().device,
}
for name, f in checks.items():
    try:
        print(name, "->", f())
    except Exception as e:
        print(name, "FAILED", type(e).__name__, str(e)[:100])

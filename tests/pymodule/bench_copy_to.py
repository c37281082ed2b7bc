"""Benchmark: device memory into a pageable host array, directly and through gilsan.copy_to's pinned
staging ring, with the ceilings that bound it. Prints a Markdown table of GB/s (10**9 bytes per second).

    PYTHONPATH=BUILD/python python3 tests/pymodule/bench_copy_to.py [--bytes 1G] [--repeat 3] ...

Every configuration is run once untimed (which also checks every byte of the result), then --repeat
times timed; the table gives the median and the best. The destination is a NumPy array when NumPy can be
imported, else a bytearray; both are ordinary pageable memory, faulted in before any timing.
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

import gilsan

try:
    import numpy
except ImportError:
    numpy = None

MIB = 1 << 20


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = text[-1:] if text[-1:] in units else ""
    try:
        value = int(text[: len(text) - len(unit)]) * units[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 8M, 1G, 4096)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"the size must be positive, not {text!r}")
    return value


def parse_ints(text):
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of ints: {text!r}") from None
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"expected positive ints, not {text!r}")
    return values


def arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bytes", type=parse_size, default=1 << 30, help="device buffer size (default 1G)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per configuration (default 3)")
    parser.add_argument("--slot-mib", type=parse_ints, default=[1, 4, 16, 64], help="ring slot sizes in MiB")
    parser.add_argument("--slots", type=parse_ints, default=[2, 4, 8], help="ring slot counts")
    parser.add_argument("--host-threads", type=parse_ints, default=[1, 2, 4, 8], help="ring host_threads values")
    parser.add_argument("--max-memcpy-threads", type=int, default=min(os.cpu_count() or 1, 16),
                        help="host memcpy ceiling: 1, 2, 4, ... up to this many threads")
    args = parser.parse_args()
    if args.repeat < 1 or args.max_memcpy_threads < 1:
        parser.error("--repeat and --max-memcpy-threads must be at least 1")
    return args


class Bench:
    def __init__(self, nbytes, repeat):
        self.nbytes = nbytes
        self.repeat = repeat
        self.rows = []
        self.stream = gilsan.Stream()
        self.expected = os.urandom(nbytes)
        self.device = gilsan.DeviceBuffer(nbytes)
        self.device.copy_from_host(self.expected)
        self.pinned = gilsan.PinnedBuffer(nbytes)
        self.pageable = numpy.empty(nbytes, dtype=numpy.uint8) if numpy is not None else bytearray(nbytes)
        self.pageable_view = (ctypes.c_char * nbytes).from_buffer(self.pageable)
        self.clear(self.pageable)

    def clear(self, buffer):
        view = self.pageable_view if buffer is self.pageable else (ctypes.c_char * self.nbytes).from_buffer(buffer)
        ctypes.memset(ctypes.addressof(view), 0, self.nbytes)
        del view

    def check(self, buffer, what):
        intact = (numpy.array_equal(numpy.frombuffer(buffer, dtype=numpy.uint8),
                                    numpy.frombuffer(self.expected, dtype=numpy.uint8))
                  if numpy is not None else bytes(buffer) == self.expected)
        if not intact:
            sys.exit(f"bench_copy_to: {what} delivered wrong bytes")

    def measure(self, label, run, destination, slot_mib="", slots="", threads=""):
        """run() performs one complete copy into `destination` (synchronized). It may return the time
        (time.perf_counter) at which the copy call gave the calling thread back, before the synchronize."""
        self.clear(destination)
        run()
        self.check(destination, label)
        seconds, blocked = [], []
        for _ in range(self.repeat):
            start = time.perf_counter()
            returned = run()
            end = time.perf_counter()
            seconds.append(end - start)
            blocked.append((returned if returned is not None else end) - start)
        rate = [self.nbytes / s / 1e9 for s in seconds]
        self.rows.append((label, slot_mib, slots, threads, statistics.median(rate), max(rate),
                          statistics.median(blocked) * 1e3))

    def copy_to(self, staging):
        gilsan.copy_to(self.pageable, self.device, self.stream, staging=staging)
        returned = time.perf_counter()
        self.stream.synchronize()
        return returned

    def run_all(self, args):
        self.measure("ceiling: cuMemcpyDtoH into pinned memory", lambda: self.device.copy_to_host(self.pinned),
                     self.pinned)
        powers = [1 << k for k in range(args.max_memcpy_threads.bit_length()) if 1 << k < args.max_memcpy_threads]
        for count in powers + [args.max_memcpy_threads]:
            self.measure("ceiling: native memcpy, pinned to pageable",
                         lambda: gilsan.host_memcpy(self.pageable, self.pinned, threads=count), self.pageable,
                         threads=count)
        self.measure("cuMemcpyDtoH into pageable (DeviceBuffer.copy_to_host)",
                     lambda: self.device.copy_to_host(self.pageable), self.pageable)
        self.measure("copy_to, no staging (cuMemcpyDtoHAsync into pageable)", lambda: self.copy_to(None),
                     self.pageable)
        for slot_mib in args.slot_mib:
            for slots in args.slots:
                for host_threads in args.host_threads:
                    with gilsan.PinnedRing(slots, slot_mib * MIB, host_threads=host_threads) as ring:
                        self.measure("copy_to via PinnedRing", lambda: self.copy_to(ring), self.pageable,
                                     slot_mib, slots, host_threads)

    def table(self):
        info = gilsan.driver()
        lines = [
            f"{self.nbytes} bytes ({self.nbytes / MIB:g} MiB) device to host; destination: "
            f"{'NumPy array' if numpy is not None else 'bytearray'} (pageable); driver: {info.kind} "
            f"{info.version}; median and best of {self.repeat} run(s); GB/s = 10**9 bytes/s; "
            "call ms: how long the copy call kept the calling thread (median)",
            "",
            "| copy | slot MiB | slots | host threads | GB/s median | GB/s best | call ms |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for label, slot_mib, slots, threads, median, best, call_ms in self.rows:
            lines.append(f"| {label} | {slot_mib} | {slots} | {threads} | {median:.2f} | {best:.2f} | {call_ms:.1f} |")
        return "\n".join(lines)

    def close(self):
        self.stream.synchronize()
        del self.pageable_view
        self.pinned.close()
        self.device.free()
        self.stream.close()


def main():
    args = arguments()
    bench = Bench(args.bytes, args.repeat)
    try:
        bench.run_all(args)
    finally:
        bench.close()
    print(bench.table())


if __name__ == "__main__":
    main()

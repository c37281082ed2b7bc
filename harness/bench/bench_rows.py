"""What `gilsan bench` measures, row by row: each row's id, label and how it is measured.

A row's id is GROUP/NAME; the rows of a group are measured together, in one process of their own per
round (bench_run.py). `how` is a callable for the rows a group's child measures itself (it returns
microseconds per callback, or {"p50", "p99"} for a latency), a string saying why the row is not
measured here, or None for the rows whose group runs something else (`gilsan run`, an injected child)
and reports them all at once."""
import bench_detection
import bench_latency
import bench_sanitizer
import bench_workloads as w

# Device work in front of each start-latency sample: long enough to outlast enqueueing the host
# function and the event behind it, so that the work's completion is what the sample starts from.
START_WORK_MS = 0.5


def on_stream(adapter, measure, count, quiet=False):
    """`measure(adapter, stream, count)` on a stream made once per process. `quiet`: a stream on which
    no host function ran yet (the raw rows: not even gilsan's)."""
    streams = {}

    def run():
        if "stream" not in streams:
            if quiet:
                stream = adapter.new_stream()
                adapter.busy(stream, 1)
                adapter.synchronize(stream)
                streams["stream"] = stream
            else:
                streams["stream"] = adapter.warm_stream()
        return measure(adapter, streams["stream"], count)

    return run


def _usable(adapter):
    return adapter is not None and not isinstance(adapter, str)


def implementation_rows(implementations, raw, count):
    """(id, label, how) of the per-callback rows measured in the implementations' own children."""
    rows = []
    reference = implementations.get("reference")
    for name, adapter in implementations.items():
        label = "gilsan.host_launch" if name == "reference" else f"{name} launch"
        if isinstance(adapter, str):
            rows.append((f"{name}/*", f"{name}: every row", adapter))
            continue
        for workload, text, needs in (("python-loop", "Python callable, launched in a Python loop", "stream-launch"),
                                      ("python-held", "Python callable, drained behind held work", "stream-launch"),
                                      ("native-loop", "native function, launched in a Python loop", "native-function"),
                                      ("native-held", "native function, drained behind held work", "native-function")):
            row_id = f"{name}/{workload}"
            if needs not in adapter.capabilities:
                rows.append((row_id, f"{label}, {text}", f"{name} lacks {needs}"))
            else:
                measure = getattr(w, workload.replace("-", "_"))
                rows.append((row_id, f"{label}, {text}", on_stream(adapter, measure, count)))
    if _usable(reference):
        rows.append(("raw/native-loop", "raw cuLaunchHostFunc of a native function (ctypes enqueue)",
                     on_stream(reference, lambda i, s, n: w.raw_native_loop(raw, i, s, n), count, quiet=True)))
        rows.append(("raw/python-loop", "ctypes CFUNCTYPE(Python) through cuLaunchHostFunc, Python loop",
                     on_stream(reference, lambda i, s, n: w.raw_python_loop(raw, i, s, n), count, quiet=True)))
        rows.append(("raw/python-held", "ctypes CFUNCTYPE(Python) through cuLaunchHostFunc, behind held work",
                     on_stream(reference, lambda i, s, n: w.raw_python_held(raw, i, s, n), count, quiet=True)))
        for nodes in (100, 2000):
            rows.append((f"reference/graph-{nodes}", f"gilsan graph of {nodes} Python host nodes, per node",
                         on_stream(reference, lambda i, s, n, k=nodes: w.gilsan_graph(s, k), count)))
    rows += _cuda_core_graph_rows(implementations.get("cuda-core"), count)
    return rows


def _cuda_core_graph_rows(core, count):
    rows = []
    if core is None:  # not asked for (--impl)
        return rows
    for nodes in (100, 2000):
        row_id, label = f"cuda-core/graph-{nodes}", f"cuda.core graph of {nodes} Python callbacks, per node"
        if isinstance(core, str):
            rows.append((row_id, label, f"not available: {core}"))
        elif "capture" not in core.capabilities:
            rows.append((row_id, label, f"not available: {core.lacks.get('capture', 'cuda-core lacks capture')}"))
        else:
            rows.append((row_id, label, on_stream(core, lambda i, s, n, k=nodes: w.cuda_core_graph(i, s, k), count)))
    return rows


def sanitizer_rows(driver, implementations):
    """(id, label, why-not or None) of the in-process and injected sanitizer rows, and {injected
    group: library} for the groups that can run here."""
    rows = bench_sanitizer.in_process_rows(driver, _usable(implementations.get("reference")))
    injected, libraries = bench_sanitizer.injected_rows(driver)
    if not _usable(implementations.get("reference")):
        injected = [(row_id, label, why or "needs gilsan's reference module") for row_id, label, why in injected]
        libraries = {}
    return rows + injected, libraries


def latency_rows(implementations, raw, samples):
    """(id, label, how, unit) of the latencies: start latency after device work (gilsan and the raw
    driver, measured in their children) and detection latency (its own group)."""
    reference = implementations.get("reference")
    rows = []
    if _usable(reference):
        for kind, text in (("python", "Python callable"), ("native", "native function")):
            gilsan_measure = getattr(bench_latency, f"gilsan_{kind}")
            raw_measure = getattr(bench_latency, f"raw_{kind}")
            rows.append((f"reference/start-{kind}", f"gilsan.host_launch, {text}: device work done to past the host function",
                         on_stream(reference, lambda i, s, n, m=gilsan_measure: m(i, s, n, START_WORK_MS), samples), "us"))
            rows.append((f"raw/start-{kind}", f"raw cuLaunchHostFunc, {text} (ctypes): device work done to past the host function",
                         on_stream(reference, lambda i, s, n, m=raw_measure: m(raw, s, n, START_WORK_MS), samples,
                                   quiet=True), "us"))
    for row_id, label, why in bench_detection.rows():
        rows.append((row_id, label, why, "ms"))
    return rows

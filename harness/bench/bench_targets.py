"""The issue's targets as same-run comparisons of `gilsan bench`'s figures (issue 16, "Targets").

Every value is made of two medians of the same run, or one median against an absolute bound; `met` is
left out where a figure is missing (its row says why).

Each comparison is also made round by round (`rounds_met` of `rounds`): the rounds are interleaved, so
round i of the numerator and of the denominator ran minutes apart at most, and a target met in some
rounds and missed in others is within what the machine's drift can decide, whichever way `met` says."""


def _round_values(figure, scale=1.0):
    samples = (figure or {}).get("samples_us")
    return None if not samples else [sample / scale for sample in samples]


def _count_rounds(item, values, targets):
    """`values`, `targets`: one per round (a target may be the same in every round)."""
    if values is None or targets is None or len(values) != len(targets):
        return
    item["rounds"] = len(values)
    item["rounds_met"] = sum(1 for value, target in zip(values, targets) if value <= target)


def per_round_ratios(figures, numerator, denominator):
    top, bottom = _round_values(figures.get(numerator)), _round_values(figures.get(denominator))
    if top is None or bottom is None or len(top) != len(bottom) or not all(value > 0 for value in bottom):
        return None
    return [high / low for high, low in zip(top, bottom)]


def ratio(figures, name, numerator, denominator, target, round_targets=None):
    """figures: {id: {"median_us": ..., "samples_us": [one per round]}} of rows and latencies ("ID-p50",
    "ID-p99"). `round_targets`: the target round by round where it is itself measured (CUPTI's floor)."""
    top, bottom = figures.get(numerator) or {}, figures.get(denominator) or {}
    item = {"name": name, "numerator": numerator, "denominator": denominator, "target": target, "value": None}
    if "median_us" in top and "median_us" in bottom and bottom["median_us"] > 0:
        item["value"] = top["median_us"] / bottom["median_us"]
        if target is not None:
            item["met"] = item["value"] <= target
            values = per_round_ratios(figures, numerator, denominator)
            if round_targets is None and values is not None:
                round_targets = [target] * len(values)
            _count_rounds(item, values, round_targets)
    return item


def absolute(figures, name, figure_id, target, scale=1.0):
    """A median against a bound, both in the figure's microseconds divided by `scale`."""
    value = (figures.get(figure_id) or {}).get("median_us")
    item = {"name": name, "numerator": figure_id, "denominator": None, "target": target,
            "value": None if value is None else value / scale}
    if item["value"] is not None and target is not None:
        item["met"] = item["value"] <= target
        values = _round_values(figures.get(figure_id), scale)
        _count_rounds(item, values, None if values is None else [target] * len(values))
    return item


def all_targets(figures, quiet_ms):
    """`quiet_ms`: the watchdog's quiet period the detection runs had (None when they did not run)."""
    items = [
        absolute(figures, "reference/python-held in us (target at most 2.5)", "reference/python-held", 2.5),
        ratio(figures, "Python vs native, held drain", "reference/python-held", "reference/native-held", 2.0),
        ratio(figures, "Python loop vs CuPy", "reference/python-loop", "cupy/python-loop", 0.4),
        ratio(figures, "native vs raw driver", "reference/native-loop", "raw/native-loop", 1.05),
    ]
    for workload, target in (("native-loop", 1.10), ("native-held", 1.10), ("python-loop", 1.25), ("python-held", 1.25)):
        items.append(ratio(figures, f"sanitizer in-process on vs off, {workload}", f"sanitizer-on/{workload}",
                           f"sanitizer-off/{workload}", target))
    # The native-lock interposer (docs/native-locks.md): preloaded into every run, it may cost the rows
    # no more than 5%.
    for workload in ("native-loop", "native-held", "python-loop", "python-held"):
        items.append(ratio(figures, f"native-lock interposer on vs off, {workload}", f"sanitizer-off/{workload}",
                           f"sanitizer-no-native-locks/{workload}", 1.05))
    # Where that cost goes on the real driver (no target of their own): the forwarding driver in front
    # of it, and the sanitizer above the forwarding driver. Their product is the on/off ratio.
    for workload in ("native-loop", "native-held", "python-loop", "python-held"):
        items.append(ratio(figures, f"forwarding driver alone vs off, {workload}", f"sanitizer-forwarding/{workload}",
                           f"sanitizer-off/{workload}", None))
        items.append(ratio(figures, f"sanitizer on vs forwarding driver alone, {workload}", f"sanitizer-on/{workload}",
                           f"sanitizer-forwarding/{workload}", None))
    for workload in ("native-loop", "python-loop"):
        # CUPTI's floor is measured in the same run: the injected library's target is to cost no more.
        floor = ratio(figures, "", f"cupti-floor/{workload}", f"not-injected/{workload}", None)["value"]
        # Round by round, each round's injected ratio against that round's floor; without the floor's
        # rounds there is no count ([] matches no round), not the median floor in every round.
        floor_rounds = per_round_ratios(figures, f"cupti-floor/{workload}", f"not-injected/{workload}")
        items.append(ratio(figures, f"injected vs not, {workload} (target: CUPTI's empty callback, same run)",
                           f"injected/{workload}", f"not-injected/{workload}", floor,
                           floor_rounds if floor_rounds is not None else []))
    for kind in ("native", "python"):
        for quantile in ("p50", "p99"):
            items.append(ratio(figures, f"start latency {quantile} after device work, {kind}, gilsan vs raw driver",
                               f"reference/start-{kind}-{quantile}", f"raw/start-{kind}-{quantile}", 1.10))
    items.append(absolute(figures, "detection p99 in ms (target: quiet period + 200 ms)", "detection/gil-inversion-p99",
                          None if quiet_ms is None else quiet_ms + 200.0, scale=1000.0))
    return items


def targets_of(rows, latencies, rounds):
    """The comparisons of a run's rows and latencies (a fresh run's, or an earlier one's JSON again).
    A figure with a sample missing (a round that failed for it alone) is compared by its median only:
    its samples can no longer be paired with another figure's by round."""
    def whole(figure):
        if len(figure.get("samples_us") or []) == rounds:
            return figure
        return {key: value for key, value in figure.items() if key != "samples_us"}

    figures = {row["id"]: whole(row) for row in rows}
    figures.update({f"{entry['id']}-{quantile}": whole(entry[quantile]) for entry in latencies
                    for quantile in ("p50", "p99") if quantile in entry})
    quiet_ms = next((entry["quiet_ms"] for entry in latencies if "quiet_ms" in entry), None)
    return all_targets(figures, quiet_ms)

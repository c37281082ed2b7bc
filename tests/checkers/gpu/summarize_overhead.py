#!/usr/bin/env python3
"""Prints the table of measure_overhead.sh's output: per placement and configuration, the median
and the lowest ns per host function over the rounds, the launching thread's median share, and the
ratios to the uninjected run. Several files (runs of the same builds) are pooled, round by round.
Usage: summarize_overhead.py OVERHEAD_TXT [OVERHEAD_TXT...]"""
import statistics
import sys

CONFIGS = ("plain", "launch-floor", "floor", "wrap-floor", "inject", "forward", "forward-inject", "inject-stats")
WHAT = {
    "plain": "no injection",
    "launch-floor": "CUPTI, empty callback, launch+sync subscribed",
    "floor": "CUPTI, empty callback, every call subscribed",
    "wrap-floor": "CUPTI launch+sync, heap trampoline wrapper",
    "inject": "libgilsan_inject.so",
    "forward": "forwarding libcuda.so.1, nobody observing",
    "forward-inject": "forwarding libcuda.so.1 + libgilsan_inject.so (observer)",
    "inject-stats": "libgilsan_inject.so, stats=1 (own time timed)",
}


def parse(path, runs):
    with open(path) as text:
        for number, line in enumerate(text, 1):
            if line.startswith("#") or not line.strip():
                continue
            try:
                fields = dict(word.split("=", 1) for word in line.split())
                key = (fields["placement"], fields["config"])
                value = (float(fields["ns_per_host_function"]), float(fields["launch_ns_per_host_function"]),
                         float(fields["launch_p50_ns"]), float(fields["launch_p99_ns"]))
            except (KeyError, ValueError) as error:
                sys.exit(f"{path}:{number}: not a measure_overhead.sh line ({error})")
            runs.setdefault(key, []).append(value)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = {}
    for path in sys.argv[1:]:
        try:
            parse(path, runs)
            with open(path) as text:
                for line in text:
                    if line.startswith("# inject-stats") or line.startswith("# baseline"):
                        print(line[2:].rstrip())
        except OSError as error:
            sys.exit(f"{path}: {error.strerror}")
    for placement in ("free", "pinned"):
        if (placement, "plain") not in runs:
            continue
        plain = [run[0] for run in runs[placement, "plain"]]
        print(f"{placement} placement, {len(plain)} rounds, ns per host function (median over rounds of: the whole")
        print("  run, the launch loop alone, one launch's median and 99th percentile), lowest whole run, ratios:")
        print(f"  {'configuration':48} {'median':>7} {'loop':>6} {'p50':>6} {'p99':>6} {'lowest':>7} {'ratio':>6} "
              f"{'lowest':>7}")
        # The baselines (as many as GILSAN_BASELINE_INJECT listed) after the library itself.
        baselines = sorted({config for place, config in runs if config.startswith("baseline")},
                           key=lambda name: int(name[len("baseline"):]))
        for config in CONFIGS[:7] + tuple(baselines) + CONFIGS[7:]:
            if (placement, config) not in runs:
                continue
            columns = list(zip(*runs[placement, config]))
            totals = columns[0]
            median = statistics.median(totals)
            loop, p50, p99 = (statistics.median(column) for column in columns[1:])
            what = WHAT.get(config, f"GILSAN_BASELINE_INJECT's build {config[len('baseline'):]}")
            print(f"  {what:48} {median:7.0f} {loop:6.0f} {p50:6.0f} {p99:6.0f} {min(totals):7.0f} "
                  f"{median / statistics.median(plain):5.2f}x {min(totals) / min(plain):6.2f}x")
        if (placement, "inject") in runs:
            inject = statistics.median(run[0] for run in runs[placement, "inject"])
            print(f"  libgilsan_inject.so: {inject / statistics.median(plain):.2f}x the uninjected median "
                  f"(target <= 1.10x)")


if __name__ == "__main__":
    main()

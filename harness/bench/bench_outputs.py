"""The outputs of `gilsan bench`, all made from its JSON document: the JSON itself, a Markdown section
(docs/performance.md includes it between markers) and an SVG of per-callback cost by row and of the
queue-depth curve, drawn here with the standard library only."""
import json
import math
import os
from xml.sax.saxutils import escape


BEGIN_MARKER = "<!-- gilsan bench: generated section begins -->"
END_MARKER = "<!-- gilsan bench: generated section ends -->"


def write_all(document, json_path, markdown_path, svg_path):
    # Both texts are made before anything is written, so that a run that cannot be drawn leaves every
    # file as it was (docs/performance.md included).
    picture = None
    if markdown_path and svg_path:
        picture = os.path.relpath(svg_path, os.path.dirname(os.path.abspath(markdown_path)))
    section = markdown(document, picture) if markdown_path else None
    picture_text = svg(document) if svg_path else None
    if json_path:
        with open(json_path, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1)
            out.write("\n")
    if markdown_path:
        _write_markdown(markdown_path, section)
    if svg_path:
        with open(svg_path, "w", encoding="utf-8") as out:
            out.write(picture_text)


# (curve in the JSON, its x value's key, its title): gilsan.host_launch with a Python callable.
CURVES = (
    ("queue_depth_python_held", "depth", "Queue depth: callbacks queued behind held work, then drained"),
    ("launching_threads", "threads", "Launching threads: one stream each, one context, loop then synchronize"),
    ("streams_one_context", "streams", "Streams of one context, round-robin launches (serialized on one callback thread)"),
)


def _write_markdown(path, section):
    """A file holding both markers (docs/performance.md) gets only the text between them replaced, so
    the hand-written parts around it stay; any other file is written whole."""
    try:
        with open(path, encoding="utf-8") as existing:
            text = existing.read()
    except FileNotFoundError:
        text = ""
    if BEGIN_MARKER in text and END_MARKER in text.split(BEGIN_MARKER, 1)[1]:
        head, rest = text.split(BEGIN_MARKER, 1)
        section = head + BEGIN_MARKER + "\n" + section + END_MARKER + rest.split(END_MARKER, 1)[1]
    with open(path, "w", encoding="utf-8") as out:
        out.write(section)


def _us(value):
    return "-" if value is None else f"{value:.2f}"


def markdown(document, picture):
    head = document["header"]
    settings = document["settings"]
    lines = [
        f"Measured {head['date_utc']} on {head['machine']} ({head['cpu']}): {head['gpu_and_driver']}; "
        f"driver {head['driver_kind']} (API {head['driver_version']}); Python {head['python']}; "
        + "; ".join(f"{name}: {version}" for name, version in head["packages"].items()) + ".",
        "",
        f"{settings['count']} empty callbacks on one stream per row; median of {settings['rounds']} interleaved "
        "rounds, each implementation's rows in a process of their own per round (min-max in brackets); "
        "microseconds per callback, drained.",
        "",
        "| Row | us per callback | spread |",
        "|---|---:|---|",
    ]
    for row in document["rows"]:
        if "median_us" in row:
            lines.append(f"| {row['label']} | {_us(row['median_us'])} | [{_us(row['min_us'])}, {_us(row['max_us'])}] |")
        else:
            lines.append(f"| {row['label']} | {row['status']} | |")
    lines += _latency_lines(document.get("latencies") or [])
    lines += ["", "Comparisons: the value is the ratio of the two medians; \"rounds met\" makes the same comparison "
              "round by round (the rounds are interleaved), so a target met in some rounds and missed in others is "
              "within the machine's drift.",
              "", "| Comparison (same run) | value | target | met | rounds met |", "|---|---:|---:|---|---:|"]
    for item in document["ratios"]:
        met = "-" if "met" not in item else ("yes" if item["met"] else "no")
        rounds = f"{item['rounds_met']} of {item['rounds']}" if "rounds" in item else "-"
        lines.append(f"| {item['name']} | {_us(item['value'])} | {_us(item['target'])} | {met} | {rounds} |")
    for name, key, title in CURVES:
        points = document["curves"].get(name) or []
        if not points:
            continue
        threads = "callback_threads" in points[0]
        lines += ["", f"{title}:", "", f"| {key} | us per callback | spread |" + (" callback threads |" if threads else ""),
                  "|---:|---:|---|" + ("---:|" if threads else "")]
        for point in points:
            lines.append(f"| {point[key]} | {_us(point['median_us'])} | [{_us(point['min_us'])}, {_us(point['max_us'])}] |"
                         + (f" {point['callback_threads']} |" if threads else ""))
    if picture:
        lines += ["", f"![per-callback cost by row and by queue depth]({picture})"]
    return "\n".join(lines) + "\n"


def _latency_lines(latencies):
    """p50 and p99, each the median over the rounds of that round's percentile, with its spread."""
    if not latencies:
        return []
    lines = ["", "Latencies: each round's p50 and p99 over its samples; median of the rounds [min, max]:", "",
             "| Latency | unit | p50 | p99 |", "|---|---|---|---|"]
    for entry in latencies:
        scale = 1000.0 if entry["unit"] == "ms" else 1.0
        if "status" in entry:
            lines.append(f"| {entry['label']} | {entry['unit']} | {entry['status']} | |")
            continue
        cells = [f"{_us(entry[q]['median_us'] / scale)} [{_us(entry[q]['min_us'] / scale)}, "
                 f"{_us(entry[q]['max_us'] / scale)}]" for q in ("p50", "p99")]
        quiet = f" (quiet period {entry['quiet_ms']:.0f} ms)" if "quiet_ms" in entry else ""
        lines.append(f"| {entry['label']}{quiet} | {entry['unit']} | {cells[0]} | {cells[1]} |")
    return lines


def _bars(rows, top, width):
    """A horizontal bar per measured row, with its min-max spread as a whisker."""
    measured = [row for row in rows if "median_us" in row]
    if not measured:
        return [], top
    scale = max(row["max_us"] for row in measured) or 1.0
    left, length = 420, width - 470
    parts = [f'<text x="10" y="{top}" font-weight="bold">Per-callback cost by row (us, drained)</text>']
    y = top + 12
    for row in measured:
        bar = length * row["median_us"] / scale
        low, high = left + length * row["min_us"] / scale, left + length * row["max_us"] / scale
        parts += [f'<text x="{left - 6}" y="{y + 11}" text-anchor="end">{escape(row["label"][:64])}</text>',
                  f'<rect x="{left}" y="{y}" width="{bar:.1f}" height="14" fill="#4a7ab5"/>',
                  f'<line x1="{low:.1f}" y1="{y + 7}" x2="{high:.1f}" y2="{y + 7}" stroke="#222"/>',
                  f'<text x="{left + bar + 4:.1f}" y="{y + 11}">{row["median_us"]:.2f}</text>']
        y += 20
    return parts, y + 20


def _curve(points, key, title, top, width):
    """Per-callback cost against the curve's x value (`key`), on a log scale."""
    if not points:
        return [], top
    left, height, length = 80, 180, width - 140
    peak = max(point["max_us"] for point in points) or 1.0
    depths = [math.log10(point[key]) for point in points]
    span = (max(depths) - min(depths)) or 1.0

    def xy(point, value):
        x = left + length * (math.log10(point[key]) - min(depths)) / span
        return x, top + 20 + height * (1 - value / peak)

    parts = [f'<text x="10" y="{top}" font-weight="bold">{escape(title)} (us per callback; x: {key}, log)</text>',
             f'<line x1="{left}" y1="{top + 20 + height}" x2="{left + length}" y2="{top + 20 + height}" stroke="#222"/>',
             f'<line x1="{left}" y1="{top + 20}" x2="{left}" y2="{top + 20 + height}" stroke="#222"/>',
             f'<text x="{left - 6}" y="{top + 26}" text-anchor="end">{peak:.1f}</text>']
    line = " ".join("{:.1f},{:.1f}".format(*xy(point, point["median_us"])) for point in points)
    parts.append(f'<polyline points="{line}" fill="none" stroke="#b5544a" stroke-width="2"/>')
    for point in points:
        x, y = xy(point, point["median_us"])
        _, low = xy(point, point["min_us"])
        _, high = xy(point, point["max_us"])
        parts += [f'<line x1="{x:.1f}" y1="{low:.1f}" x2="{x:.1f}" y2="{high:.1f}" stroke="#222"/>',
                  f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#b5544a"/>',
                  f'<text x="{x:.1f}" y="{top + 36 + height}" text-anchor="middle">{point[key]}</text>']
    return parts, top + height + 60


def svg(document):
    width = 960
    bars, y = _bars(document["rows"], 24, width)
    parts = bars
    for name, key, title in CURVES:
        drawn, y = _curve(document["curves"].get(name) or [], key, title, y, width)
        parts += drawn
    body = "\n".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" font-family="sans-serif" '
            f'font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n')
